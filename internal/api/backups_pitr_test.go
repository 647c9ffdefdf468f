package api

import (
	"testing"
	"time"
)

// TestEarliestRestorableDateTime: the window of point in time recovery is
// the recovery period (RecoveryPeriodInDays, 1 to 35 days), not the 24
// hours stream records are kept. "Your table data is only recoverable to
// any point-in-time from within the configured recovery period."
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_PointInTimeRecoveryDescription.html
// Lengthening the period never claims the history the shorter one let go.
func TestEarliestRestorableDateTime(t *testing.T) {
	e := itemEngine(t)
	enabled := time.Unix(1700000000, 0)
	clock := enabled
	e.now = func() time.Time { return clock }
	earliest := func(op, body string) (time.Time, int) {
		t.Helper()
		d := mustServe(t, e, op, body).(continuousBackupsOutput).ContinuousBackupsDescription.PointInTimeRecoveryDescription
		if d.EarliestRestorableDateTime == nil || d.LatestRestorableDateTime == nil || !time.Time(*d.LatestRestorableDateTime).Equal(clock) {
			t.Fatalf("%s: %+v, want a window ending now", op, d)
		}
		return time.Time(*d.EarliestRestorableDateTime), d.RecoveryPeriodInDays
	}
	describe := `{"TableName":"hash"}`
	earliest("UpdateContinuousBackups", `{"TableName":"hash","PointInTimeRecoverySpecification":{"PointInTimeRecoveryEnabled":true,"RecoveryPeriodInDays":3}}`)
	clock = enabled.Add(48 * time.Hour)
	if got, days := earliest("DescribeContinuousBackups", describe); !got.Equal(enabled) || days != 3 {
		t.Errorf("two days on: earliest %v (%d days), want %v: the window reaches back past 24 hours", got, days, enabled)
	}
	clock = enabled.Add(5 * 24 * time.Hour)
	if got, _ := earliest("DescribeContinuousBackups", describe); !got.Equal(clock.AddDate(0, 0, -3)) {
		t.Errorf("five days on: earliest %v, want %v", got, clock.AddDate(0, 0, -3))
	}
	start := clock.AddDate(0, 0, -3)
	if got, days := earliest("UpdateContinuousBackups", `{"TableName":"hash","PointInTimeRecoverySpecification":{"PointInTimeRecoveryEnabled":true,"RecoveryPeriodInDays":35}}`); !got.Equal(start) || days != 35 {
		t.Errorf("after lengthening the period: earliest %v (%d days), want %v", got, days, start)
	}
	clock = clock.Add(24 * time.Hour)
	if got, _ := earliest("DescribeContinuousBackups", describe); !got.Equal(start) {
		t.Errorf("a day after lengthening: earliest %v, want %v", got, start)
	}
}

// TestUpdateContinuousBackupsByArn: UpdateContinuousBackups, like the other
// operations with a TableName member, takes the table's ARN as well as its
// name, and changes the table the ARN names.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_UpdateContinuousBackups.html#DDB-UpdateContinuousBackups-request-TableName
func TestUpdateContinuousBackupsByArn(t *testing.T) {
	e := itemEngine(t)
	out := mustServe(t, e, "UpdateContinuousBackups", `{"TableName":"`+hashArn+`","PointInTimeRecoverySpecification":{"PointInTimeRecoveryEnabled":true}}`)
	if st := out.(continuousBackupsOutput).ContinuousBackupsDescription.PointInTimeRecoveryDescription.PointInTimeRecoveryStatus; st != "ENABLED" {
		t.Fatalf("PointInTimeRecoveryStatus %q after enabling by ARN, want ENABLED", st)
	}
	d := mustServe(t, e, "DescribeContinuousBackups", `{"TableName":"hash"}`).(continuousBackupsOutput)
	if st := d.ContinuousBackupsDescription.PointInTimeRecoveryDescription.PointInTimeRecoveryStatus; st != "ENABLED" {
		t.Errorf("DescribeContinuousBackups by name: %q, want ENABLED", st)
	}
}
