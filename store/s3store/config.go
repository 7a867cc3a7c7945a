package s3store

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/smithy-go/logging"

	"github.com/s3bulk/s3bulk/store"
)

// LoadAWSConfig loads the AWS configuration the way the AWS CLI does
// (environment, shared config and credentials files, profile, SSO, IMDS,
// container credentials), with cfg's Region, Profile, static keys,
// checksum setting and Logger applied. It is the one place the tree loads
// it: NewClient uses it, and so do the callers that need an SDK
// configuration of their own (the benchmark's methods, S3 Control). The
// region is "" when nothing sets one; NewClient then uses us-east-1. A
// profile that does not exist is an error wrapping
// store.ErrInvalidCredentials.
func LoadAWSConfig(ctx context.Context, cfg Config) (aws.Config, error) {
	var opts []func(*config.LoadOptions) error
	if cfg.Region != "" {
		opts = append(opts, config.WithRegion(cfg.Region))
	}
	if cfg.Profile != "" {
		opts = append(opts, config.WithSharedConfigProfile(cfg.Profile))
	}
	if len(cfg.ConfigFiles) > 0 {
		opts = append(opts, config.WithSharedConfigFiles(cfg.ConfigFiles))
	}
	if len(cfg.CredentialsFiles) > 0 {
		opts = append(opts, config.WithSharedCredentialsFiles(cfg.CredentialsFiles))
	}
	if cfg.AccessKey != "" || cfg.SecretKey != "" {
		opts = append(opts, config.WithCredentialsProvider(
			credentials.NewStaticCredentialsProvider(cfg.AccessKey, cfg.SecretKey, cfg.SessionToken)))
	}
	if cfg.ChecksumWhenRequired {
		opts = append(opts,
			config.WithRequestChecksumCalculation(aws.RequestChecksumCalculationWhenRequired),
			config.WithResponseChecksumValidation(aws.ResponseChecksumValidationWhenRequired))
	}
	var logger logging.Logger = logging.Nop{}
	if cfg.Logger != nil {
		logger = sdkLogger{cfg.Logger}
	}
	opts = append(opts, config.WithLogger(logger))
	awsCfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		var noProfile config.SharedConfigProfileNotExistError
		if errors.As(err, &noProfile) {
			return aws.Config{}, &Error{Op: "load config", URL: "profile " + cfg.Profile, Sentinel: store.ErrInvalidCredentials, Err: err}
		}
		return aws.Config{}, fmt.Errorf("load aws config: %w", err)
	}
	return awsCfg, nil
}
