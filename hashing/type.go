package hashing

import (
	"fmt"
	"strings"
)

// Type is an identifier type: a key of the service's audience user object.
type Type string

// The keys of the audience user object (spec/ads.md, Audiences: "arrays of
// strings named email, device_id, handle, service_id, phone_number,
// partner_user_id").
const (
	TypeEmail         Type = "email"
	TypeDeviceID      Type = "device_id"
	TypeHandle        Type = "handle"
	TypeServiceID     Type = "service_id"
	TypePhoneNumber   Type = "phone_number"
	TypePartnerUserID Type = "partner_user_id"
)

// types lists every Type in the order user objects are written.
var types = [...]Type{TypeEmail, TypeDeviceID, TypeHandle, TypeServiceID, TypePhoneNumber, TypePartnerUserID}

const numTypes = len(types)

// Types returns every identifier type in the order user objects are written.
func Types() []Type { return append([]Type(nil), types[:]...) }

// index returns t's position in types, or -1 when t is not a known type.
func (t Type) index() int {
	for i, k := range types {
		if k == t {
			return i
		}
	}
	return -1
}

// Hashed reports whether values of t are sent as SHA-256 hashes; the service
// takes partner_user_id as it is and every other key hashed.
func (t Type) Hashed() bool { return t != TypePartnerUserID }

// ParseType returns the Type named name (a user object key, any case, spaces
// around it ignored).
func ParseType(name string) (Type, error) {
	t := Type(strings.ToLower(strings.TrimSpace(name)))
	if t.index() < 0 {
		return "", fmt.Errorf("unknown identifier type %q (want one of %s)", name, typeList())
	}
	return t, nil
}

func typeList() string {
	names := make([]string, len(types))
	for i, t := range types {
		names[i] = string(t)
	}
	return strings.Join(names, ", ")
}
