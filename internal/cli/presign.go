package cli

import (
	"fmt"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/s3bulk/s3bulk/store/s3store"
)

func (a *app) presignCmd() *cobra.Command {
	var (
		raw     bool
		put     bool
		expires string
	)
	cmd := &cobra.Command{
		Use:   "presign s3://bucket/key",
		Short: "Print a presigned URL that reads (or, with --put, writes) one object",
		Long: `Print a URL that anyone holding it can use, without credentials, to GET
the object (or, with --put, to PUT a body to its key) until it expires, as
'aws s3 presign' does. The URL is signed locally: no request is made, so
it is printed even for an object that does not exist yet.

--expires-in takes a duration (90s, 15m, 12h) or a number of seconds, as
the AWS CLI does; at most 7 days. The URL carries its signature: treat it
as a password for that one object. With temporary credentials it also
carries their session token, as the AWS CLI's URLs do.`,
		Example: `  s3bulk presign s3://bucket/report.pdf                 valid for 1 hour
  s3bulk presign --expires-in 15m s3://bucket/a.json
  curl -T file.bin "$(s3bulk presign --put s3://bucket/inbox/file.bin)"`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			loc, err := parseObject("presign", args[0], raw)
			if err != nil {
				return err
			}
			d, err := parseExpiry(expires)
			if err != nil {
				return err
			}
			c, err := a.newSession().s3(ctx)
			if err != nil {
				return err
			}
			url, err := c.Bucket(loc.Bucket).Presign(ctx, loc.Key, put, d)
			if err != nil {
				return err
			}
			fmt.Fprintln(a.stdio.Out, url)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&expires, "expires-in", "1h", "how long the URL works: a duration (15m, 12h) or seconds, at most 7 days")
	fl.BoolVar(&put, "put", false, "presign a PUT (an upload to the key) instead of a GET")
	fl.BoolVar(&raw, "raw", false, "treat '*' and '?' as ordinary characters")
	return cmd
}

// parseExpiry reads --expires-in: a Go duration or, as the AWS CLI takes
// it, a whole number of seconds.
func parseExpiry(v string) (time.Duration, error) {
	d, err := time.ParseDuration(v)
	if err != nil {
		n, nerr := strconv.ParseInt(v, 10, 64)
		if nerr != nil || n > int64(s3store.MaxPresignExpiry/time.Second) {
			if nerr == nil {
				return 0, usagef("--expires-in %s: must be between 1s and 7 days (168h)", v)
			}
			return 0, usagef("--expires-in %q: want a duration (15m, 12h) or a number of seconds", v)
		}
		d = time.Duration(n) * time.Second
	}
	if d < time.Second || d > s3store.MaxPresignExpiry {
		return 0, usagef("--expires-in %s: must be between 1s and 7 days (168h)", v)
	}
	return d, nil
}
