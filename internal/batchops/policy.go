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
			Resource: bucketARNs(in.ManifestBucket, in.ReportBucket),
		},
	}}
	trust := Policy{Version: "2012-10-17", Statement: []Statement{{
		Effect:    "Allow",
		Principal: map[string]string{"Service": BatchPrincipal},
		Action:    []string{"sts:AssumeRole"},
	}}}
	passRole := "*"
	if in.RoleArn != "" {
		passRole = in.RoleArn
	}
	caller := Policy{Version: "2012-10-17", Statement: []Statement{
		{
			Sid:      "ListSource",
			Effect:   "Allow",
			Action:   []string{"s3:ListBucket"},
			Resource: []string{bucketARN(in.SourceBucket)},
		},
		{
			Sid:      "WriteManifest",
			Effect:   "Allow",
			Action:   []string{"s3:PutObject", "s3:GetObject", "s3:AbortMultipartUpload"},
			Resource: []string{objectsARN(in.ManifestBucket, in.ManifestPrefix)},
		},
		{
			Sid:      "ReadReport",
			Effect:   "Allow",
			Action:   []string{"s3:GetObject"},
			Resource: []string{objectsARN(in.ReportBucket, in.ReportPrefix)},
		},
		{
			Sid:      "RunJobs",
			Effect:   "Allow",
			Action:   []string{"s3:CreateJob", "s3:DescribeJob", "s3:ListJobs", "s3:UpdateJobStatus", "sts:GetCallerIdentity"},
			Resource: []string{"*"},
		},
		{
			Sid:      "PassJobRole",
			Effect:   "Allow",
			Action:   []string{"iam:PassRole"},
			Resource: []string{passRole},
		},
	}}
	return Policies{Role: role, Trust: trust, Caller: caller}
}

// JSON formats a policy the way the IAM console shows it.
func (p Policy) JSON() string {
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		panic(err) // only strings and slices: cannot fail
	}
	return string(b)
}

func bucketARN(b string) string { return "arn:aws:s3:::" + b }

// objectsARN covers every key under prefix. A prefix cut inside a name
// ("logs/2024-") still works: IAM matches '*' against the rest of the key.
func objectsARN(bucket, prefix string) string {
	return bucketARN(bucket) + "/" + strings.TrimSuffix(prefix, "*") + "*"
}

func bucketARNs(buckets ...string) []string {
	var out []string
	seen := map[string]bool{}
	for _, b := range buckets {
		if b != "" && !seen[b] {
			seen[b] = true
			out = append(out, bucketARN(b))
		}
	}
	return out
}
