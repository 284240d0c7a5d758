package api

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"strings"
)

// DeriveKey turns secret material into a 32-byte AES key for purpose
// (HKDF-SHA256). A secret that is itself 32 bytes in hex or base64 is still
// passed through HKDF, binding keys to their purpose.
func DeriveKey(purpose, secret string) []byte {
	ikm := []byte(secret)
	if b, err := hex.DecodeString(strings.TrimSpace(secret)); err == nil && len(b) == 32 {
		ikm = b
	} else if b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(secret)); err == nil && len(b) == 32 {
		ikm = b
	}
	key, err := hkdf.Key(sha256.New, ikm, []byte("adsync"), "adsync "+purpose, 32)
	if err != nil {
		panic(err) // only for impossible lengths
	}
	return key
}

// Seal encrypts plain with AES-256-GCM; aad binds the ciphertext to its row.
func Seal(key, plain, aad []byte) ([]byte, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	gcm, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	nonce := make([]byte, gcm.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return nil, err
	}
	return gcm.Seal(nonce, nonce, plain, aad), nil
}

// ErrDecrypt means a ciphertext was written with another key or altered.
var ErrDecrypt = errors.New("cannot decrypt: wrong key or altered data")

// Open decrypts what Seal produced.
func Open(key, sealed, aad []byte) ([]byte, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	gcm, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	if len(sealed) < gcm.NonceSize() {
		return nil, ErrDecrypt
	}
	plain, err := gcm.Open(nil, sealed[:gcm.NonceSize()], sealed[gcm.NonceSize():], aad)
	if err != nil {
		return nil, ErrDecrypt
	}
	return plain, nil
}

// tokenHash identifies a token without revealing it.
func tokenHash(token string) string {
	sum := sha256.Sum256([]byte("adsync token " + token))
	return hex.EncodeToString(sum[:])
}
