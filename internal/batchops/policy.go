package batchops

import (
	"encoding/json"
	"strings"
)

// PolicyInput names what a copy job touches.
type PolicyInput struct {
	SourceBucket, SourcePrefix     string
	DestBucket, DestPrefix         string
	ManifestBucket, ManifestPrefix string
	ReportBucket, ReportPrefix     string
	// RoleArn, when known, narrows the caller's iam:PassRole to that role.
	RoleArn string
	// Partition of the buckets' region ("" means "aws"): ARNs name it.
	Partition string
	// KMSKeyARN, when objects are encrypted with SSE-KMS, is the key both
	// the job and the local fallback decrypt sources and encrypt copies with.
	KMSKeyARN string
}

// Policy is an IAM policy document.
type Policy struct {
	Version   string      `json:"Version"`
	Statement []Statement `json:"Statement"`
}

// Statement is one IAM policy statement.
type Statement struct {
	Sid       string            `json:"Sid,omitempty"`
	Effect    string            `json:"Effect"`
	Principal map[string]string `json:"Principal,omitempty"`
	Action    []string          `json:"Action"`
	Resource  []string          `json:"Resource,omitempty"`
}

// Policies are the three documents a copy job needs.
type Policies struct {
	// Role is the permissions policy of the role passed with --role-arn: what
	// Batch Operations does on your behalf.
	Role Policy `json:"rolePermissions"`
	// Trust lets Batch Operations assume that role.
	Trust Policy `json:"roleTrust"`
	// Caller is what the user running s3bulk needs: list the source, write
	// the manifest, run and watch the job, read the report.
	Caller Policy `json:"caller"`
}

// BatchPrincipal is the service that assumes a job's role.
const BatchPrincipal = "batchoperations.s3.amazonaws.com"

// NewPolicies writes least-privilege policies for a copy from in.Source to
// in.Dest. AWS's published example differs in two ways, on purpose: object
// permissions are limited to the prefixes the job uses, and
// s3:GetBucketLocation, a bucket action, names the bucket rather than its
// objects (where it would grant nothing).
func NewPolicies(in PolicyInput) Policies {
	trust := Policy{Version: "2012-10-17", Statement: []Statement{{
		Effect:    "Allow",
		Principal: map[string]string{"Service": BatchPrincipal},
		Action:    []string{"sts:AssumeRole"},
	}}}
	return Policies{Role: rolePolicy(in), Trust: trust, Caller: callerPolicy(in)}
}

// objectsARN is the ARN of the objects under prefix in bucket. A prefix
// cut inside a name ("logs/2024-") still works: IAM matches '*' against
// the rest of the key.
func (in PolicyInput) objectsARN(bucket, prefix string) string {
	return BucketARN(in.Partition, bucket) + "/" + strings.TrimSuffix(prefix, "*") + "*"
}

// rolePolicy is the permissions policy of the job's role: it reads the
// source and the manifest, writes the copies and the report.
func rolePolicy(in PolicyInput) Policy {
	objectsARN := in.objectsARN
	role := Policy{Version: "2012-10-17", Statement: []Statement{
		{
			Sid:      "ReadSource",
			Effect:   "Allow",
			Action:   []string{"s3:GetObject", "s3:GetObjectVersion", "s3:GetObjectAcl", "s3:GetObjectTagging"},
			Resource: []string{objectsARN(in.SourceBucket, in.SourcePrefix)},
		},
		{
			Sid:      "WriteDestination",
			Effect:   "Allow",
			Action:   []string{"s3:PutObject", "s3:PutObjectAcl", "s3:PutObjectTagging"},
			Resource: []string{objectsARN(in.DestBucket, in.DestPrefix)},
		},
		{
			Sid:      "ReadManifest",
			Effect:   "Allow",
			Action:   []string{"s3:GetObject", "s3:GetObjectVersion"},
			Resource: []string{objectsARN(in.ManifestBucket, in.ManifestPrefix)},
		},
		{
			Sid:      "WriteReport",
			Effect:   "Allow",
			Action:   []string{"s3:PutObject"},
			Resource: []string{objectsARN(in.ReportBucket, in.ReportPrefix)},
		},
		{
			Sid:      "LocateBuckets",
			Effect:   "Allow",
			Action:   []string{"s3:GetBucketLocation"},
			Resource: bucketARNs(in.Partition, in.ManifestBucket, in.ReportBucket),
		},
	}}
	if in.KMSKeyARN != "" {
		role.Statement = append(role.Statement, kmsStatement(in.KMSKeyARN))
	}
	return role
}

// callerPolicy is the policy of whoever runs s3bulk.
func callerPolicy(in PolicyInput) Policy {
	bucketARN := func(b string) string { return BucketARN(in.Partition, b) }
	objectsARN := in.objectsARN
	passRole := "*"
	if in.RoleArn != "" {
		passRole = in.RoleArn
	}
	// The caller lists the source, finds the destination's region
	// (HeadBucket needs s3:ListBucket), writes the manifest (and deletes it
	// when CreateJob refuses the job), reads the report, runs the job, and
	// copies from this machine what a job cannot copy (objects of 5 GB or
	// more, by multipart copy: UploadPartCopy reads the source with
	// s3:GetObject, the parts and their completion are s3:PutObject, a
	// failed copy is aborted).
	caller := Policy{Version: "2012-10-17", Statement: []Statement{
		{
			Sid:    "ListSource",
			Effect: "Allow",
			// Versions: a versioned source's manifest pins the version
			// listed (ListObjectVersions, GetBucketVersioning).
			Action:   []string{"s3:ListBucket", "s3:ListBucketVersions", "s3:GetBucketVersioning"},
			Resource: []string{bucketARN(in.SourceBucket)},
		},
		{
			Sid:      "LocateDestination",
			Effect:   "Allow",
			Action:   []string{"s3:ListBucket", "s3:GetBucketLocation"},
			Resource: bucketARNs(in.Partition, in.DestBucket),
		},
		{
			Sid:      "WriteManifest",
			Effect:   "Allow",
			Action:   []string{"s3:PutObject", "s3:GetObject", "s3:DeleteObject", "s3:AbortMultipartUpload"},
			Resource: []string{objectsARN(in.ManifestBucket, in.ManifestPrefix)},
		},
		{
			Sid:      "ReadReport",
			Effect:   "Allow",
			Action:   []string{"s3:GetObject"},
			Resource: []string{objectsARN(in.ReportBucket, in.ReportPrefix)},
		},
		{
			Sid:      "LocalFallbackReadSource",
			Effect:   "Allow",
			Action:   []string{"s3:GetObject", "s3:GetObjectVersion", "s3:GetObjectTagging"},
			Resource: []string{objectsARN(in.SourceBucket, in.SourcePrefix)},
		},
		{
			Sid:      "LocalFallbackWriteDestination",
			Effect:   "Allow",
			Action:   []string{"s3:PutObject", "s3:PutObjectTagging", "s3:AbortMultipartUpload", "s3:ListMultipartUploadParts"},
			Resource: []string{objectsARN(in.DestBucket, in.DestPrefix)},
		},
		{
			Sid:      "RunJobs",
			Effect:   "Allow",
			Action:   []string{"s3:CreateJob", "s3:DescribeJob", "s3:ListJobs", "s3:UpdateJobStatus", "s3:UpdateJobPriority", "sts:GetCallerIdentity"},
			Resource: []string{"*"},
		},
	}}
	if in.KMSKeyARN != "" {
		caller.Statement = append(caller.Statement, kmsStatement(in.KMSKeyARN))
	}
	caller.Statement = append(caller.Statement, Statement{
		Sid:      "PassJobRole",
		Effect:   "Allow",
		Action:   []string{"iam:PassRole"},
		Resource: []string{passRole},
	})
	return caller
}

// kmsStatement lets S3 decrypt SSE-KMS sources and encrypt copies with key
// on the holder's behalf.
func kmsStatement(key string) Statement {
	return Statement{
		Sid:      "UseKMSKey",
		Effect:   "Allow",
		Action:   []string{"kms:Decrypt", "kms:GenerateDataKey"},
		Resource: []string{key},
	}
}

// JSON formats a policy the way the IAM console shows it.
func (p Policy) JSON() string {
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		panic(err) // only strings and slices: cannot fail
	}
	return string(b)
}

func bucketARNs(partition string, buckets ...string) []string {
	var out []string
	seen := map[string]bool{}
	for _, b := range buckets {
		if b != "" && !seen[b] {
			seen[b] = true
			out = append(out, BucketARN(partition, b))
		}
	}
	return out
}
