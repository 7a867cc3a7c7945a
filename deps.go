//go:build tools

package tools

import (
	_ "github.com/aws/aws-sdk-go-v2/aws"
	_ "github.com/aws/aws-sdk-go-v2/config"
	_ "github.com/aws/aws-sdk-go-v2/credentials"
	_ "github.com/aws/aws-sdk-go-v2/service/s3"
	_ "github.com/aws/aws-sdk-go-v2/service/s3control"
	_ "github.com/aws/aws-sdk-go-v2/service/sts"
	_ "github.com/aws/aws-sdk-go-v2/aws/retry"
	_ "github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	_ "github.com/aws/smithy-go"
	_ "github.com/versity/versitygw/embedgw"
	_ "github.com/versity/versitygw/backend/posix"
	_ "github.com/versity/versitygw/backend/meta"
	_ "github.com/spf13/cobra"
	_ "github.com/vbauerster/mpb/v8"
	_ "golang.org/x/sync/errgroup"
	_ "github.com/google/go-cmp/cmp"
	_ "gonum.org/v1/plot"
	_ "gonum.org/v1/plot/plotter"
	_ "gonum.org/v1/plot/vg"
	_ "golang.org/x/term"
)
