package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/schollz/progressbar/v3"
	"github.com/spf13/pflag"
)

// clientFlags are the flags of the subcommands that talk to a running
// server through the AWS SDK (export, import).
type clientFlags struct {
	endpoint, region, accessKeyID, secretAccessKey string
}

func (c *clientFlags) add(f *pflag.FlagSet) {
	f.StringVar(&c.endpoint, "endpoint", "http://127.0.0.1:8000", "endpoint URL of the server")
	f.StringVar(&c.region, "region", "us-east-1", "region of the requests")
	f.StringVar(&c.accessKeyID, "access-key-id", "local", "access key the requests are signed with")
	f.StringVar(&c.secretAccessKey, "secret-access-key", "local", "secret of --access-key-id")
}

// client returns a DynamoDB client of the server.
func (c *clientFlags) client() *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{
		BaseEndpoint: aws.String(c.endpoint),
		Region:       c.region,
		Credentials:  credentials.NewStaticCredentialsProvider(c.accessKeyID, c.secretAccessKey, ""),
	})
}

// progress is a job's progress as a Describe operation reports it.
type progress struct {
	done, total int64 // bytes, or items when the total is unknown
	ended       bool
	err         error // the job failed
}

// follow polls describe until the job ends, drawing a progress bar of
// done out of total on w (a spinner while the total is unknown).
func follow(ctx context.Context, w io.Writer, what string, every time.Duration, describe func(context.Context) progress) error {
	var bar *progressbar.ProgressBar
	for {
		p := describe(ctx)
		if bar == nil {
			total := p.total
			if total <= 0 {
				total = -1
			}
			bar = progressbar.NewOptions64(total, progressbar.OptionSetWriter(w), progressbar.OptionSetDescription(what),
				progressbar.OptionShowBytes(p.total > 0), progressbar.OptionThrottle(100*time.Millisecond),
				progressbar.OptionSetWidth(30), progressbar.OptionOnCompletion(func() { fmt.Fprintln(w) }))
		}
		bar.Set64(p.done)
		if p.err != nil {
			fmt.Fprintln(w)
			return p.err
		}
		if p.ended {
			return bar.Finish()
		}
		select {
		case <-ctx.Done():
			fmt.Fprintln(w)
			return ctx.Err()
		case <-time.After(every):
		}
	}
}
