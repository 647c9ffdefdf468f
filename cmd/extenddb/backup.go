package main

import (
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/spf13/cobra"
)

// backupCmd is `extenddb backup create|list|restore`: the on-demand backups
// of a running server (any DynamoDB API endpoint), through the AWS SDK, with
// progress bars on standard error while a backup is CREATING and a
// restored table is CREATING. See docs/backups.md.
func backupCmd() *cobra.Command {
	cc := &apiClient{}
	cmd := &cobra.Command{
		Use:   "backup",
		Short: "Create, list and restore on-demand backups of a running server",
		Long: `Client commands for the on-demand backups of a running server (extenddb or
any DynamoDB API endpoint), through the AWS SDK: create waits for the backup
to be AVAILABLE and restore for the restored table to be ACTIVE, with a
progress bar on standard error (--no-wait returns at once).

Credentials: --access-key-id and --secret-access-key, else AWS_ACCESS_KEY_ID
and AWS_SECRET_ACCESS_KEY, else placeholders (for a server without
authentication).`,
	}
	cc.flags(cmd.PersistentFlags())
	cmd.AddCommand(backupCreateCmd(cc), backupListCmd(cc), backupRestoreCmd(cc))
	return cmd
}

func backupCreateCmd(c *apiClient) *cobra.Command {
	var table, name string
	cmd := &cobra.Command{
		Use:     "create --table TABLE [--name NAME]",
		Short:   "Back up a table (CreateBackup) and wait until the backup is AVAILABLE",
		Example: `  extenddb backup create --table Music --name music-nightly`,
		Args:    cobra.NoArgs,
		RunE: c.run(func([]string) error {
			if name == "" {
				name = table + "-" + time.Now().UTC().Format("20060102-150405")
			}
			return c.createBackup(table, name)
		}),
	}
	cmd.Flags().StringVar(&table, "table", "", "table to back up (required)")
	cmd.Flags().StringVar(&name, "name", "", "backup name (default TABLE-yyyymmdd-hhmmss)")
	cmd.Flags().BoolVar(&c.noWait, "no-wait", false, "return once the backup is started")
	_ = cmd.MarkFlagRequired("table")
	return cmd
}

// createBackup starts a backup of table and follows it to AVAILABLE: the
// bar counts up to the table's item count, reached when the backup is.
func (c *apiClient) createBackup(table, name string) error {
	var total int64
	if d, err := c.client.DescribeTable(c.ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)}); err == nil {
		total = aws.ToInt64(d.Table.ItemCount)
	}
	out, err := c.client.CreateBackup(c.ctx, &dynamodb.CreateBackupInput{TableName: aws.String(table), BackupName: aws.String(name)})
	if err != nil {
		return err
	}
	arn := aws.ToString(out.BackupDetails.BackupArn)
	if c.noWait {
		fmt.Fprintf(c.resultOut, "%s\t%s\n", arn, out.BackupDetails.BackupStatus)
		return nil
	}
	bar := c.bar(total, "backup "+name+" CREATING")
	var d *types.BackupDescription
	err = follow(c, func() (*dynamodb.DescribeBackupOutput, error) {
		return c.client.DescribeBackup(c.ctx, &dynamodb.DescribeBackupInput{BackupArn: aws.String(arn)})
	}, func(o *dynamodb.DescribeBackupOutput) (bool, error) {
		d = o.BackupDescription
		switch st := d.BackupDetails.BackupStatus; st {
		case types.BackupStatusAvailable:
			return true, nil
		case types.BackupStatusCreating:
			return false, bar.Add64(0)
		default:
			return false, fmt.Errorf("backup %s is %s", arn, st)
		}
	})
	if err != nil {
		return err
	}
	items := aws.ToInt64(d.SourceTableDetails.ItemCount)
	if total <= 0 {
		bar.ChangeMax64(max(items, 1))
	}
	bar.Describe("backup " + name + " AVAILABLE")
	_ = bar.Set64(max(items, 1))
	_ = bar.Finish()
	fmt.Fprintf(c.resultOut, "%s\tAVAILABLE\t%d items\t%d bytes\n", arn, items, aws.ToInt64(d.BackupDetails.BackupSizeBytes))
	return nil
}

func backupListCmd(c *apiClient) *cobra.Command {
	var table string
	cmd := &cobra.Command{
		Use:   "list [--table TABLE]",
		Short: "List the backups (ListBackups), oldest first",
		Args:  cobra.NoArgs,
		RunE:  c.run(func([]string) error { return c.listBackups(table) }),
	}
	cmd.Flags().StringVar(&table, "table", "", "only the backups of this table")
	return cmd
}

// listBackups prints every backup (all pages of ListBackups) as a table.
func (c *apiClient) listBackups(table string) error {
	in := &dynamodb.ListBackupsInput{}
	if table != "" {
		in.TableName = aws.String(table)
	}
	w := tabwriter.NewWriter(c.resultOut, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "NAME\tTABLE\tSTATUS\tCREATED\tBYTES\tARN")
	for {
		page, err := c.client.ListBackups(c.ctx, in)
		if err != nil {
			return err
		}
		for _, s := range page.BackupSummaries {
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%d\t%s\n", aws.ToString(s.BackupName), aws.ToString(s.TableName), s.BackupStatus,
				aws.ToTime(s.BackupCreationDateTime).UTC().Format(time.RFC3339), aws.ToInt64(s.BackupSizeBytes), aws.ToString(s.BackupArn))
		}
		if page.LastEvaluatedBackupArn == nil {
			return w.Flush()
		}
		in.ExclusiveStartBackupArn = page.LastEvaluatedBackupArn
	}
}

func backupRestoreCmd(c *apiClient) *cobra.Command {
	var arn, target string
	cmd := &cobra.Command{
		Use:     "restore --backup-arn ARN --target-table TABLE",
		Short:   "Restore a backup into a new table (RestoreTableFromBackup) and wait until it is ACTIVE",
		Example: `  extenddb backup restore --backup-arn arn:aws:dynamodb:...:table/Music/backup/0176... --target-table Music2`,
		Args:    cobra.NoArgs,
		RunE:    c.run(func([]string) error { return c.restoreBackup(arn, target) }),
	}
	cmd.Flags().StringVar(&arn, "backup-arn", "", "ARN of the backup (required)")
	cmd.Flags().StringVar(&target, "target-table", "", "name of the new table (required)")
	cmd.Flags().BoolVar(&c.noWait, "no-wait", false, "return once the restore is started")
	_ = cmd.MarkFlagRequired("backup-arn")
	_ = cmd.MarkFlagRequired("target-table")
	return cmd
}

// restoreBackup starts a restore and follows the new table from CREATING
// to ACTIVE: the bar counts its items (DescribeTable's ItemCount, where
// the server reports it while the table fills) up to the backup's.
func (c *apiClient) restoreBackup(arn, target string) error {
	var total int64
	if d, err := c.client.DescribeBackup(c.ctx, &dynamodb.DescribeBackupInput{BackupArn: aws.String(arn)}); err == nil {
		total = aws.ToInt64(d.BackupDescription.SourceTableDetails.ItemCount)
	}
	if _, err := c.client.RestoreTableFromBackup(c.ctx, &dynamodb.RestoreTableFromBackupInput{
		BackupArn: aws.String(arn), TargetTableName: aws.String(target)}); err != nil {
		return err
	}
	if c.noWait {
		fmt.Fprintf(c.resultOut, "%s\tCREATING\n", target)
		return nil
	}
	bar := c.bar(total, "restore "+target+" CREATING")
	var items int64
	err := follow(c, func() (*dynamodb.DescribeTableOutput, error) {
		return c.client.DescribeTable(c.ctx, &dynamodb.DescribeTableInput{TableName: aws.String(target)})
	}, func(o *dynamodb.DescribeTableOutput) (bool, error) {
		items = aws.ToInt64(o.Table.ItemCount)
		switch st := o.Table.TableStatus; st {
		case types.TableStatusActive:
			return true, nil
		case types.TableStatusCreating:
			return false, bar.Set64(min(items, max(total, items)))
		default:
			return false, fmt.Errorf("table %s is %s", target, st)
		}
	})
	if err != nil {
		return err
	}
	bar.Describe("restore " + target + " ACTIVE")
	_ = bar.Set64(max(items, total, 1))
	_ = bar.Finish()
	fmt.Fprintf(c.resultOut, "%s\tACTIVE\t%d items\n", target, items)
	return nil
}
