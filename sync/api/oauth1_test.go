package api

import (
	"net/url"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	require.NoError(t, err)
	return u
}

// RFC 5849 section 3.4.1.1: the example request's signature base string
// (query with encoded and repeated names, a form body, no oauth_version).
func TestSignatureBaseStringReproducesRFC5849Section3_4_1(t *testing.T) {
	t.Parallel()
	u := mustURL(t, "http://example.com/request?b5=%3D%253D&a3=a&c%40=&a2=r%20b")
	form := url.Values{"c2": {""}, "a3": {"2 q"}}
	p := oauthParams{consumerKey: "9djdj82h48djs9d2", token: "kkk9d7dh3k39sjv7", nonce: "7d8f3e4a", timestamp: 137131201}
	require.Equal(t, "POST&http%3A%2F%2Fexample.com%2Frequest&a2%3Dr%2520b%26a3%3D2%2520q%26a3%3Da%26b5%3D%253D%25253D%26c%2540%3D%26c2%3D%26oauth_consumer_key%3D9djdj82h48djs9d2%26oauth_nonce%3D7d8f3e4a%26oauth_signature_method%3DHMAC-SHA1%26oauth_timestamp%3D137131201%26oauth_token%3Dkkk9d7dh3k39sjv7",
		signatureBase("POST", u, form, p))
}

// RFC 5849 section 1.2: the photo-printing example's three signed requests.
func TestSignatureReproducesRFC5849Section1_2(t *testing.T) {
	t.Parallel()
	const key, secret = "dpf43f3p2l4k3l03", "kd94hf93k423kf44"
	tests := []struct {
		name, method, url, tokenSecret, want string
		p                                    oauthParams
	}{
		{"temporary credentials", "POST", "https://photos.example.net/initiate", "", "74KNZJeDHnMBp0EMJ9ZHt/XKycU=",
			oauthParams{consumerKey: key, nonce: "wIjqoS", timestamp: 137131200, callback: "http://printer.example.com/ready"}},
		{"token credentials", "POST", "https://photos.example.net/token", "hdhd0244k9j7ao03", "gKgrFCywp7rO0OXSjdot/IHF7IU=",
			oauthParams{consumerKey: key, token: "hh5s93j4hdidpola", nonce: "walatlh", timestamp: 137131201, verifier: "hfdp7dh39dks9884"}},
		{"protected resource", "GET", "http://photos.example.net/photos?file=vacation.jpg&size=original", "pfkkdhi9sl3r4s00", "MdpQcU8iPSUjWoN/UDMsK2sui9I=",
			oauthParams{consumerKey: key, token: "nnch734d00sl2jdk", nonce: "chapoH", timestamp: 137131202}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := sign(signatureBase(tt.method, mustURL(t, tt.url), nil, tt.p), secret, tt.tokenSecret)
			require.Equal(t, tt.want, got)
		})
	}
}

// The service's published worked example ("creating a signature"). Its
// signature depends on the exact URL, so URL and value are pinned together.
func TestSignatureReproducesTheServicesPublishedExample(t *testing.T) {
	t.Parallel()
	const publishedURL = "https://api.twitter.com/1.1/statuses/update.json?include_entities=true"
	p := oauthParams{
		consumerKey: "xvz1evFS4wEEPTGEFPHBog",
		token:       "370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb",
		nonce:       "kYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZeNu2VS4cg",
		timestamp:   1318622958,
		version:     "1.0",
	}
	form := url.Values{"status": {"Hello Ladies + Gentlemen, a signed OAuth request!"}}
	got := sign(signatureBase("POST", mustURL(t, publishedURL), form, p), "kAcSOqF21Fu85e7zjz7ZN2U4ZRhfV3WpwPAoE3Z7kBw", "LswwdoUaIvS8ltyTt5jkRh4J50vUPVVHtR2YPi5kE")
	require.Equal(t, "hCtSmYh+iHYCEqBWrE7C7hYmtUk=", got)
}

func TestEscapeIsRFC3986WithUppercaseHex(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"":                   "",
		"AZaz09-._~":         "AZaz09-._~",
		"Ladies + Gentlemen": "Ladies%20%2B%20Gentlemen",
		"a=b&c":              "a%3Db%26c",
		"!*'();:@&=+$,/?#[]": "%21%2A%27%28%29%3B%3A%40%26%3D%2B%24%2C%2F%3F%23%5B%5D",
		"☃":                  "%E2%98%83",
		"%":                  "%25",
		"\x00\xff":           "%00%FF",
	} {
		require.Equal(t, want, Escape(in), "Escape(%q)", in)
	}
}

func TestAuthorizationHeaderCarriesTheSpecsParameters(t *testing.T) {
	t.Parallel()
	h := SignRequest("GET", mustURL(t, "http://127.0.0.1/ads/12/accounts?count=5"), nil,
		Credentials{ConsumerKey: "ck", ConsumerSecret: "consumer-secret-value"}, &Token{Token: "tok", Secret: "token-secret-value"},
		time.Unix(1700000000, 0))
	require.Regexp(t, `^OAuth `, h)
	for _, want := range []string{`oauth_consumer_key="ck"`, `oauth_token="tok"`, `oauth_signature_method="HMAC-SHA1"`,
		`oauth_timestamp="1700000000"`, `oauth_version="1.0"`} {
		require.Contains(t, h, want)
	}
	nonce := regexp.MustCompile(`oauth_nonce="([^"]*)"`).FindStringSubmatch(h)
	require.Len(t, nonce, 2)
	require.Regexp(t, `^[A-Za-z0-9]{32}$`, nonce[1], "ASCII-only nonce")
	require.Regexp(t, `oauth_signature="[A-Za-z0-9%]+"`, h, "the signature is percent-encoded")
	// Secrets long enough that a random nonce or signature cannot hold them
	// by chance (a two-letter secret did, now and then).
	require.NotContains(t, h, "consumer-secret-value", "secrets never appear in the header")
	require.NotContains(t, h, "token-secret-value")
}

func TestJSONBodiesAreNotSignedButFormBodiesAre(t *testing.T) {
	t.Parallel()
	u := mustURL(t, "http://127.0.0.1/x")
	p := oauthParams{consumerKey: "ck", nonce: "n", timestamp: 1, version: "1.0"}
	withForm := signatureBase("POST", u, url.Values{"name": {"x"}}, p)
	without := signatureBase("POST", u, nil, p)
	require.Contains(t, withForm, "name%3Dx")
	require.NotEqual(t, withForm, without)
}
