package export

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials/stscreds"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"github.com/aws/smithy-go/logging"
	"gocloud.dev/blob"
	"gocloud.dev/blob/s3blob"
)

// openS3Bucket opens the bucket named bucket with the settings of an
// output URL's query q: the parameters gocloud.dev's s3blob URL opener reads
// (its own and those of aws.V2ConfigFromURLParams), with the same meaning.
// The AWS configuration is built here rather than by that opener so that
// the SDK logs nothing: by default it writes its own warnings to stderr
// (the credential chain's "falling back to IMDSv1" among them, and the
// checksum warnings of S3-compatible servers), in the middle of a
// command's output. What goes wrong reaches the user as an error instead.
func openS3Bucket(ctx context.Context, bucket string, q url.Values) (*blob.Bucket, *s3.Client, error) {
	flag := func(key string) (bool, error) {
		v := q.Get(key)
		if v == "" {
			return false, nil
		}
		b, err := strconv.ParseBool(v)
		if err != nil {
			return false, fmt.Errorf("query parameter %s=%q: want true or false", key, v)
		}
		return b, nil
	}
	cfg, err := s3Config(ctx, q, flag)
	if err != nil {
		return nil, nil, err
	}
	var s3opts []func(*s3.Options)
	for _, key := range []string{"accelerate", "use_path_style", "s3ForcePathStyle", "disable_https"} {
		on, err := flag(key)
		if err != nil {
			return nil, nil, err
		}
		if !on {
			continue
		}
		s3opts = append(s3opts, func(o *s3.Options) {
			switch key {
			case "accelerate":
				o.UseAccelerate = true
			case "disable_https":
				o.EndpointOptions.DisableHTTPS = true
			default:
				o.UsePathStyle = true
			}
		})
	}
	client := s3.NewFromConfig(cfg, s3opts...)
	opts := &s3blob.Options{KMSEncryptionID: q.Get("kmskeyid"), RequestChecksumCalculation: cfg.RequestChecksumCalculation}
	if v := q.Get("ssetype"); v != "" {
		for _, t := range types.ServerSideEncryptionAes256.Values() {
			if strings.EqualFold(string(t), v) {
				opts.EncryptionType = t
			}
		}
		if opts.EncryptionType == "" {
			return nil, nil, fmt.Errorf("query parameter ssetype=%q: want one of %v", v, types.ServerSideEncryptionAes256.Values())
		}
	}
	b, err := s3blob.OpenBucket(ctx, client, bucket, opts)
	if err != nil {
		return nil, nil, err
	}
	return b, client, nil
}

// s3Config is the AWS configuration of q's parameters, as
// aws.V2ConfigFromURLParams reads them, with a logger that drops the SDK's
// messages.
func s3Config(ctx context.Context, q url.Values, flag func(string) (bool, error)) (aws.Config, error) {
	opts := []func(*config.LoadOptions) error{config.WithLogger(logging.Nop{}), config.WithClientLogMode(0)}
	if v := q.Get("region"); v != "" {
		opts = append(opts, config.WithRegion(v))
	}
	if v := q.Get("profile"); v != "" {
		opts = append(opts, config.WithSharedConfigProfile(v))
	}
	for key, opt := range map[string]func(*config.LoadOptions) error{
		"dualstack": config.WithUseDualStackEndpoint(aws.DualStackEndpointStateEnabled),
		"fips":      config.WithUseFIPSEndpoint(aws.FIPSEndpointStateEnabled),
		"anonymous": config.WithCredentialsProvider(aws.AnonymousCredentials{}),
	} {
		on, err := flag(key)
		if err != nil {
			return aws.Config{}, err
		}
		if on {
			opts = append(opts, opt)
		}
	}
	if set, supported, err := checksumParam(q, "request_checksum_calculation"); err != nil {
		return aws.Config{}, err
	} else if set {
		v := aws.RequestChecksumCalculationWhenRequired
		if supported {
			v = aws.RequestChecksumCalculationWhenSupported
		}
		opts = append(opts, config.WithRequestChecksumCalculation(v))
	}
	if set, supported, err := checksumParam(q, "response_checksum_validation"); err != nil {
		return aws.Config{}, err
	} else if set {
		v := aws.ResponseChecksumValidationWhenRequired
		if supported {
			v = aws.ResponseChecksumValidationWhenSupported
		}
		opts = append(opts, config.WithResponseChecksumValidation(v))
	}
	limiter := retry.RateLimiter(ratelimit.None)
	if v := q.Get("rate_limiter_capacity"); v != "" {
		n, err := strconv.ParseUint(v, 10, 31)
		if err != nil {
			return aws.Config{}, fmt.Errorf("query parameter rate_limiter_capacity=%q: want a count", v)
		}
		limiter = ratelimit.NewTokenRateLimit(uint(n))
	}
	opts = append(opts, config.WithRetryer(func() aws.Retryer {
		return retry.NewStandard(func(so *retry.StandardOptions) { so.RateLimiter = limiter })
	}))
	cfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return aws.Config{}, err
	}
	if role := q.Get("role"); role != "" {
		if !strings.HasPrefix(role, "arn:") {
			return aws.Config{}, fmt.Errorf("query parameter role=%q: want an ARN (arn:...)", role)
		}
		cfg.Credentials = aws.NewCredentialsCache(stscreds.NewAssumeRoleProvider(sts.NewFromConfig(cfg), role))
	}
	if endpoint := q.Get("endpoint"); endpoint != "" {
		immutable, err := flag("hostname_immutable")
		if err != nil {
			return aws.Config{}, err
		}
		// As aws.V2ConfigFromURLParams resolves it, so an endpoint means
		// what it meant before adsync built this configuration itself.
		//lint:ignore SA1019 the resolver gocloud.dev's opener uses, kept for the same addressing
		cfg.EndpointResolverWithOptions = aws.EndpointResolverWithOptionsFunc(func(_, region string, _ ...any) (aws.Endpoint, error) {
			return aws.Endpoint{PartitionID: "aws", URL: endpoint, SigningRegion: region, HostnameImmutable: immutable}, nil
		})
	}
	return cfg, nil
}

// checksumParam reads a checksum query parameter as gocloud does: unset,
// when_supported or when_required (either case).
func checksumParam(q url.Values, key string) (set, supported bool, err error) {
	switch q.Get(key) {
	case "":
		return false, false, nil
	case "when_supported", "WHEN_SUPPORTED":
		return true, true, nil
	case "when_required", "WHEN_REQUIRED":
		return true, false, nil
	}
	return false, false, fmt.Errorf("query parameter %s=%q: want when_supported or when_required", key, q.Get(key))
}
