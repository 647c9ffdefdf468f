package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// The plumbing of the client commands (backup, export, import): they call
// a running server's DynamoDB API through the AWS SDK and follow the work
// they start with a progress bar on standard error.

// apiClient is the connection settings of a client command.
type apiClient struct {
	endpoint, region       string
	accessKeyID, secretKey string
	poll                   time.Duration
	noWait                 bool
	progressOut, resultOut io.Writer
	ctx                    context.Context
	stop                   context.CancelFunc
	client                 *dynamodb.Client
}

func (c *apiClient) flags(f *pflag.FlagSet) {
	f.StringVar(&c.endpoint, "endpoint", "http://127.0.0.1:8000", "endpoint URL of the server")
	f.StringVar(&c.region, "region", "us-east-1", "region to sign requests for")
	f.StringVar(&c.accessKeyID, "access-key-id", "", "access key ID (default $AWS_ACCESS_KEY_ID)")
	f.StringVar(&c.secretKey, "secret-access-key", "", "secret access key (default $AWS_SECRET_ACCESS_KEY)")
	f.DurationVar(&c.poll, "poll", 500*time.Millisecond, "how often progress is asked for")
}

// open prepares the SDK client and the command's context (ended by
// SIGINT or SIGTERM).
func (c *apiClient) open(cmd *cobra.Command) {
	key, secret := c.accessKeyID, c.secretKey
	if key == "" {
		key, secret = os.Getenv("AWS_ACCESS_KEY_ID"), os.Getenv("AWS_SECRET_ACCESS_KEY")
	}
	if key == "" {
		key, secret = "extenddb", "extenddb"
	}
	c.client = dynamodb.New(dynamodb.Options{
		BaseEndpoint: aws.String(c.endpoint),
		Region:       c.region,
		Credentials:  credentials.NewStaticCredentialsProvider(key, secret, ""),
	})
	c.ctx, c.stop = signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	c.progressOut, c.resultOut = cmd.ErrOrStderr(), cmd.OutOrStdout()
}

// run is the RunE of a client command: it opens c for the command, calls
// fn with the command's arguments and releases c.
func (c *apiClient) run(fn func(args []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		c.open(cmd)
		defer c.stop()
		return fn(args)
	}
}

// bar is a progress bar on the progress output: of total items, or a
// spinner when total is not positive.
func (c *apiClient) bar(total int64, desc string) *progressbar.ProgressBar {
	if total <= 0 {
		total = -1
	}
	return c.newBar(total, desc, progressbar.OptionShowCount(), progressbar.OptionSetItsString("items"), progressbar.OptionShowIts())
}

// byteBar is a progress bar on the progress output of total bytes.
func (c *apiClient) byteBar(total int64, desc string) *progressbar.ProgressBar {
	return c.newBar(total, desc, progressbar.OptionShowBytes(true))
}

// newBar is a progress bar of total units shown as the options unit say.
func (c *apiClient) newBar(total int64, desc string, unit ...progressbar.Option) *progressbar.ProgressBar {
	opts := append([]progressbar.Option{progressbar.OptionSetWriter(c.progressOut), progressbar.OptionSetDescription(desc)}, unit...)
	opts = append(opts,
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionOnCompletion(func() { fmt.Fprintln(c.progressOut) }),
	)
	return progressbar.NewOptions64(total, opts...)
}

// follow asks describe for the state of the work every poll interval and
// hands each answer to step, until step reports the work done, an error,
// or the command is interrupted.
func follow[O any](c *apiClient, describe func() (*O, error), step func(*O) (bool, error)) error {
	for {
		o, err := describe()
		if err != nil {
			return err
		}
		if done, err := step(o); done || err != nil {
			return err
		}
		select {
		case <-c.ctx.Done():
			return errors.New("interrupted: the server goes on with the work")
		case <-time.After(c.poll):
		}
	}
}
