package stats

import (
	"fmt"
	"slices"
	"strings"
)

// SegmentationTypes are the segmentation_type values a segmented pull may
// ask for: the ones spec analytics.md names (AGE, GENDER, DEVICES,
// PLATFORMS, LOCATIONS, LANGUAGES, INTERESTS, KEYWORDS, CONVERSION_TAGS;
// REGIONS, METROS and POSTAL_CODES with a country; PLATFORM_VERSIONS with a
// platform) and AUDIENCES, which the public "Metrics and Segmentation" page
// lists too. A type not listed here is refused before anything is queued:
// the service would answer every one of its requests with a 400.
var SegmentationTypes = []string{"AGE", "GENDER", "DEVICES", "PLATFORMS", "LOCATIONS", "LANGUAGES", "INTERESTS",
	"KEYWORDS", "CONVERSION_TAGS", "AUDIENCES", "REGIONS", "METROS", "POSTAL_CODES", "PLATFORM_VERSIONS"}

// needsValue are the segmentation types that need a country or platform,
// by the request parameter that carries it.
var needsValue = map[string]string{"REGIONS": "country", "METROS": "country", "POSTAL_CODES": "country",
	"PLATFORM_VERSIONS": "platform"}

// SegmentationParameter is the request parameter a segmentation type needs
// beside it ("country" or "platform"; "" for the types that need none): what
// follows the colon of a stored TYPE:VALUE segment_type.
func SegmentationParameter(typ string) string { return needsValue[typ] }

// NormalizeSegmentation checks one segmentation setting against
// SegmentationTypes: TYPE, or TYPE:VALUE for the types that need a country
// or platform. Both the command's check and the worker's call it. The type
// is upper-cased; the value is kept as given (trimmed): a country is a
// country's location key (the targeting_value of its COUNTRIES entry in
// targeting_criteria/locations, 96683cc9126741d1 for the United States),
// which the service matches case-sensitively.
func NormalizeSegmentation(s string) (string, error) {
	s = strings.TrimSpace(s)
	typ, val, hasVal := strings.Cut(s, ":")
	typ = strings.ToUpper(strings.TrimSpace(typ))
	val = strings.TrimSpace(val)
	if typ == "" || strings.ContainsAny(typ, ", ") {
		return "", fmt.Errorf("stats: segmentation %q: want a segmentation_type such as AGE or REGIONS:<country key>", s)
	}
	if !slices.Contains(SegmentationTypes, typ) {
		return "", fmt.Errorf("stats: segmentation %q: unknown segmentation_type %s; want one of %s",
			s, typ, strings.Join(SegmentationTypes, ", "))
	}
	switch need := needsValue[typ]; {
	case need != "" && val == "":
		return "", fmt.Errorf("stats: segmentation %s needs a %s: write %s:VALUE", typ, need, typ)
	case need == "" && hasVal:
		return "", fmt.Errorf("stats: segmentation %s takes no value, got %q", typ, s)
	}
	if val != "" {
		return typ + ":" + val, nil
	}
	return typ, nil
}
