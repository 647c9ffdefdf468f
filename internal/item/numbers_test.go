package item

import (
	"errors"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/extenddb/extenddb/internal/ddberr"
)

// Sources cited below:
//
//	[types]     https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/HowItWorks.NamingRulesDataTypes.html#HowItWorks.DataTypes.Number
//	[alternator] https://github.com/scylladb/scylladb/blob/master/test/alternator/test_number.py (run against DynamoDB)
//	[dynalite]  https://github.com/architect/dynalite/blob/main/validations/index.js (checkNum) and test/scan.js
//	[issue]     https://github.com/internetarchive/internet-archive-voice-apps/issues/225 (DynamoDB's reply to "NaN")

func validationMessage(t *testing.T, err error) string {
	t.Helper()
	var e *ddberr.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v is not a *ddberr.Error", err)
	}
	if e.Name() != "ValidationException" {
		t.Fatalf("error %v is %s, want ValidationException", err, e.Name())
	}
	return e.Message
}

var (
	digits38 = "12345678901234567890123456789012345678"
	nines38  = strings.Repeat("9", 38)
)

func TestParseNumberCanonical(t *testing.T) {
	tests := []struct{ in, want, source string }{
		{"0", "0", "[types]"},
		{"-0", "0", "[types] zero has no sign"},
		{"0.000", "0", "[types] trailing zeros are trimmed"},
		{"00.0e5", "0", "[types]"},
		{"0e1000", "0", "[alternator] test_invalid_numbers accepts 0e1000"},
		{"1.50E2", "150", "[types]"},
		{"-.5", "-0.5", "Java BigDecimal syntax, which DynamoDB accepts ([alternator] accepts .123)"},
		{".123", "0.123", "[alternator]"},
		{"+3", "3", "[alternator] accepts +3"},
		{"0001.23", "1.23", "[alternator]"},
		{"1e+5", "100000", "[alternator]"},
		{"-17e5", "-1700000", "[alternator]"},
		{"-17.4E37", "-174" + strings.Repeat("0", 36), "[alternator]"},
		{"-7.1234", "-7.1234", "[alternator]"},
		{"1.", "1", "BigDecimal syntax"},
		{"123.4500", "123.45", "[types]"},
		{"0.0000001", "0.0000001", "[types]"},
		{"1E-130", "0." + strings.Repeat("0", 129) + "1", "[types] smallest positive"},
		{"-1E-130", "-0." + strings.Repeat("0", 129) + "1", "[types] largest negative"},
		{"1.5e-130", "0." + strings.Repeat("0", 129) + "15", "[dynalite] range is judged by the leading digit"},
		{"9.9999999999999999999999999999999999999E+125", nines38 + strings.Repeat("0", 88), "[types] largest"},
		{"-9.9999999999999999999999999999999999999E+125", "-" + nines38 + strings.Repeat("0", 88), "[types] smallest"},
		{"1e125", "1" + strings.Repeat("0", 125), "[alternator] test_number_magnitude_allowed"},
		{digits38, digits38, "[alternator] 38 digits allowed"},
		{"3.1415926535897932384626433832795028841", "3.1415926535897932384626433832795028841", "[alternator] test_number_precision_allowed"},
		{"31415926535897932384626433832795028841e30", "31415926535897932384626433832795028841" + strings.Repeat("0", 30), "[alternator]"},
		{"1" + strings.Repeat("0", 60), "1" + strings.Repeat("0", 60), "[dynalite] trailing integer zeros are not significant"},
		{"1.000000000000000000000000000000000000000000", "1", "[dynalite] trailing zeros are not significant"},
		{"0.00000000000000000000000000000000000000000000000000001", "0.00000000000000000000000000000000000000000000000000001", "leading zeros are not significant"},
	}
	for _, tc := range tests {
		got, err := ParseNumber(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseNumber(%q) = %q, %v; want %q (%s)", tc.in, got, err, tc.want, tc.source)
		}
		if !IsCanonicalNumber(tc.want) {
			t.Errorf("IsCanonicalNumber(%q) = false", tc.want)
		}
		if again, _ := ParseNumber(got); again != got {
			t.Errorf("ParseNumber(%q) = %q, not idempotent", got, again)
		}
	}
}

func TestParseNumberErrors(t *testing.T) {
	tests := []struct{ in, want, source string }{
		{"", msgNumberSyntax, "[dynalite] N: '' gives the message without a value"},
		{"b", msgNumberSyntax + ": b", "[dynalite] test/scan.js"},
		{"NaN", msgNumberSyntax + ": NaN", "[issue] and [alternator] test_invalid_numbers"},
		{"Infinity", msgNumberSyntax + ": Infinity", "[alternator]"},
		{"-Infinity", msgNumberSyntax + ": -Infinity", "[alternator]"},
		{"dog", msgNumberSyntax + ": dog", "[alternator]"},
		{" 1", msgNumberSyntax + ":  1", "[alternator] spaces are not allowed"},
		{"1 ", msgNumberSyntax + ": 1 ", "[alternator]"},
		{"1e", msgNumberSyntax + ": 1e", "BigDecimal syntax"},
		{"1e+", msgNumberSyntax + ": 1e+", "BigDecimal syntax"},
		{".", msgNumberSyntax + ": .", "BigDecimal syntax"},
		{"-", msgNumberSyntax + ": -", "BigDecimal syntax"},
		{"--1", msgNumberSyntax + ": --1", "BigDecimal syntax"},
		{"0x10", msgNumberSyntax + ": 0x10", "BigDecimal syntax"},
		{"1.2.3", msgNumberSyntax + ": 1.2.3", "BigDecimal syntax"},
		{"1e5.5", msgNumberSyntax + ": 1e5.5", "BigDecimal syntax"},
		{"1_000", msgNumberSyntax + ": 1_000", "BigDecimal syntax"},
		{"1e126", msgNumberOverflow, "[dynalite] test/scan.js"},
		{"-1e126", msgNumberOverflow, "[dynalite]"},
		{"11e125", msgNumberOverflow, "[alternator] test_number_magnitude_not_allowed"},
		{"10000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000", msgNumberOverflow, "1E+127 written out"},
		{"1e99999999999999999999999999", msgNumberOverflow, "[alternator] test_number_magnitude_not_allowed_dos"},
		{"1e-131", msgNumberUnderflow, "[dynalite] test/scan.js"},
		{"-1e-131", msgNumberUnderflow, "[dynalite]"},
		{"0.9e-130", msgNumberUnderflow, "[alternator]"},
		{"1e-99999999999999999999999999", msgNumberUnderflow, "huge negative exponent"},
		{"123456789012345678901234567890123456789", msgNumberPrecision, "[dynalite] 39 digits"},
		{"-1.23456789012345678901234567890123456789", msgNumberPrecision, "[dynalite]"},
		{"3.14159265358979323846264338327950288419", msgNumberPrecision, "[alternator] test_number_precision_not_allowed"},
		{"314159265358979323846264338327950288419e30", msgNumberPrecision, "[alternator]"},
		{"1" + strings.Repeat("0", 37) + "1", msgNumberPrecision, "interior zeros are significant"},
		{"1" + strings.Repeat("0", 130) + "1", msgNumberOverflow, "[dynalite] range is checked before precision"},
	}
	for _, tc := range tests {
		got, err := ParseNumber(tc.in)
		if err == nil {
			t.Errorf("ParseNumber(%q) = %q, want error %q (%s)", tc.in, got, tc.want, tc.source)
			continue
		}
		if msg := validationMessage(t, err); msg != tc.want {
			t.Errorf("ParseNumber(%q) error %q, want %q (%s)", tc.in, msg, tc.want, tc.source)
		}
		if IsCanonicalNumber(tc.in) {
			t.Errorf("IsCanonicalNumber(%q) = true", tc.in)
		}
	}
}

func TestParseNumberNoCopy(t *testing.T) {
	s := "123.45"
	allocs := testing.AllocsPerRun(100, func() {
		if c, err := ParseNumber(s); err != nil || c != s {
			t.Fatal(c, err)
		}
	})
	if allocs != 0 {
		t.Errorf("ParseNumber of canonical text allocates %v times", allocs)
	}
}

func TestCompareNumbers(t *testing.T) {
	ordered := []string{
		"-9.9999999999999999999999999999999999999E+125", "-1e125", "-100", "-10", "-9.5", "-1.5", "-1.25", "-1.2",
		"-1", "-0.5", "-0.123", "-0.12", "-1e-130", "0", "1e-130", "0.12", "0.123", "0.5", "1", "1.2", "1.25",
		"1.5", "9.5", "10", "100", "1e125", nines38 + "e88",
	}
	for i, a := range ordered {
		for j, b := range ordered {
			want := 0
			if i < j {
				want = -1
			} else if i > j {
				want = 1
			}
			if got := CompareNumbers(a, b); got != want {
				t.Errorf("CompareNumbers(%q, %q) = %d, want %d", a, b, got, want)
			}
		}
	}
	if CompareNumbers("1.50", "1.5") != 0 || CompareNumbers("-0", "0") != 0 || CompareNumbers("1e2", "100") != 0 {
		t.Error("CompareNumbers does not see equal values in different forms as equal")
	}
}

// randomNumber returns a random valid number as canonical text.
func randomNumber(r *rand.Rand) string {
	if r.IntN(20) == 0 {
		return "0"
	}
	n := 1 + r.IntN(maxNumberDigits)
	if r.IntN(3) == 0 {
		n = 1 + r.IntN(4)
	}
	var x decimal
	x.n = n
	for i := 0; i < n; i++ {
		x.d[i] = byte('0' + r.IntN(10))
	}
	x.d[0] = byte('1' + r.IntN(9))
	x.d[n-1] = byte('1' + r.IntN(9))
	if r.IntN(2) == 0 {
		x.pt = -20 + r.IntN(45) // mostly ordinary magnitudes
	} else {
		x.pt = minNumberExp + 1 + r.IntN(maxNumberExp-minNumberExp+1)
	}
	x.neg = r.IntN(2) == 0
	return string(x.appendText(nil))
}

// respell writes canonical number text in another accepted form: exponent
// notation, leading and trailing zeros, a '+' sign.
func respell(r *rand.Rand, s string) string {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	intPart, frac, _ := strings.Cut(s, ".")
	digits := intPart + frac
	point := len(intPart) // the decimal point sits before digits[point]
	shift := r.IntN(10) - 5
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	} else if r.IntN(4) == 0 {
		b.WriteByte('+')
	}
	b.WriteString(strings.Repeat("0", r.IntN(3)))
	newPoint := point + shift
	for newPoint < 0 {
		digits = "0" + digits
		newPoint++
	}
	for newPoint > len(digits) {
		digits += "0"
	}
	b.WriteString(digits[:newPoint])
	b.WriteByte('.')
	b.WriteString(digits[newPoint:])
	b.WriteString(strings.Repeat("0", r.IntN(3)))
	if shift != 0 || r.IntN(2) == 0 {
		b.WriteString([]string{"e", "E"}[r.IntN(2)])
		b.WriteString(big.NewInt(int64(-shift)).String())
	}
	return b.String()
}

func TestParseNumberRespelled(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 20000; i++ {
		c := randomNumber(r)
		s := respell(r, c)
		got, err := ParseNumber(s)
		if err != nil || got != c {
			t.Fatalf("ParseNumber(%q) = %q, %v; want %q", s, got, err, c)
		}
	}
}

// ratOf is the exact value of valid number text.
func ratOf(t testing.TB, s string) *big.Rat {
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		t.Fatalf("big.Rat cannot parse %q", s)
	}
	return r
}

// ratText is the canonical text of r, or "" when r is not a terminating
// decimal of at most 38 significant digits within DynamoDB's range.
func ratText(r *big.Rat) string {
	if r.Sign() == 0 {
		return "0"
	}
	s := r.FloatString(200)
	x, e := parseDecimal(s)
	if e != numOK || new(big.Rat).SetFrac(r.Num(), r.Denom()).Cmp(ratFromDecimal(&x)) != 0 {
		return ""
	}
	return string(x.appendText(nil))
}

func ratFromDecimal(x *decimal) *big.Rat {
	r, _ := new(big.Rat).SetString(string(x.appendText(nil)))
	return r
}

func TestAddSubtractProperty(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 20000; i++ {
		a, b := randomNumber(r), randomNumber(r)
		if r.IntN(4) == 0 { // operands close in magnitude, to exercise carries and cancellation
			b = a
			if r.IntN(2) == 0 {
				b, _ = AddNumbers(a, "1")
				if b == "" {
					b = a
				}
			}
		}
		for _, sub := range []bool{false, true} {
			want := new(big.Rat)
			if sub {
				want.Sub(ratOf(t, a), ratOf(t, b))
			} else {
				want.Add(ratOf(t, a), ratOf(t, b))
			}
			wantText := ratText(want)
			var got string
			var err error
			if sub {
				got, err = SubtractNumbers(a, b)
			} else {
				got, err = AddNumbers(a, b)
			}
			switch {
			case wantText == "" && err == nil:
				t.Fatalf("%s %v %s = %s, want an error (exact %s)", a, sub, b, got, want.FloatString(10))
			case wantText != "" && (err != nil || got != wantText):
				t.Fatalf("%s %v %s = %q, %v; want %q", a, sub, b, got, err, wantText)
			}
		}
	}
}

func TestAddNumbers(t *testing.T) {
	tests := []struct{ a, b, sum, diff, source string }{
		{"1", "10000000000000000000000", "10000000000000000000001", "-9999999999999999999999", "[alternator] test_update_expression_plus_precision"},
		{"0.3", "0.1", "0.4", "0.2", "https://github.com/getmoto/moto/pull/10092 (AWS column)"},
		{"100000000000000000000.00000001", "1", "100000000000000000001.00000001", "99999999999999999999.00000001", "https://github.com/getmoto/moto/pull/10092 (AWS column)"},
		{nines38, "1", "1" + strings.Repeat("0", 38), nines38[1:] + "8", "carry into a new digit"},
		{"-5", "5", "0", "-10", "cancellation"},
		{"0", "-2.5", "-2.5", "2.5", "zero operand"},
		{"1.5", "1.5", "3", "0", "trailing zeros trimmed"},
	}
	for _, tc := range tests {
		if got, err := AddNumbers(tc.a, tc.b); err != nil || got != tc.sum {
			t.Errorf("AddNumbers(%s, %s) = %q, %v; want %q (%s)", tc.a, tc.b, got, err, tc.sum, tc.source)
		}
		if got, err := SubtractNumbers(tc.a, tc.b); err != nil || got != tc.diff {
			t.Errorf("SubtractNumbers(%s, %s) = %q, %v; want %q (%s)", tc.a, tc.b, got, err, tc.diff, tc.source)
		}
	}
	errs := []struct {
		a, b     string
		subtract bool
		want     string
		source   string
	}{
		{"9e125", "9e125", false, msgNumberOverflow, "[alternator] test_update_expression_plus_overflow"},
		{"9e125", "-9e125", true, msgNumberOverflow, "[alternator] test_update_expression_plus_overflow"},
		// DynamoDB reports a result needing more than 38 digits as an overflow
		// rather than rounding it: [alternator] test_update_expression_plus_imprecise.
		{"1e50", "1", true, msgNumberOverflow, "[alternator] test_update_expression_plus_imprecise"},
		{"1e50", "1", false, msgNumberOverflow, "[alternator] test_update_expression_plus_imprecise"},
		{"1.0000000000000000000000000000000000001e-130", "1e-130", true, msgNumberUnderflow, "a difference below 1E-130"},
		{"1e100000000", "1", false, msgNumberOverflow, "[alternator] test_number_magnitude_not_allowed_dos: operands are range-checked"},
		{"x", "1", false, msgNumberSyntax + ": x", "operands are validated"},
		{"1", digits38 + "9", false, msgNumberPrecision, "operands are validated"},
	}
	for _, tc := range errs {
		var err error
		if tc.subtract {
			_, err = SubtractNumbers(tc.a, tc.b)
		} else {
			_, err = AddNumbers(tc.a, tc.b)
		}
		if err == nil {
			t.Errorf("%s op %s: no error, want %q (%s)", tc.a, tc.b, tc.want, tc.source)
			continue
		}
		if msg := validationMessage(t, err); msg != tc.want {
			t.Errorf("%s op %s: %q, want %q (%s)", tc.a, tc.b, msg, tc.want, tc.source)
		}
	}
}

func FuzzParseNumber(f *testing.F) {
	for _, s := range []string{"0", "-0", "1.50E2", "-.5", "+3", "1e-130", "1e126", digits38, "9.9e125", "NaN", " 1", "1e", "0e99999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseNumber(s)
		if err != nil {
			validationMessage(t, err)
			return
		}
		if again, err := ParseNumber(c); err != nil || again != c {
			t.Fatalf("ParseNumber(%q) = %q, which does not parse to itself (%q, %v)", s, c, again, err)
		}
		if CompareNumbers(s, c) != 0 {
			t.Fatalf("CompareNumbers(%q, %q) != 0", s, c)
		}
		if c != "0" && len(s) < 1000 {
			if ratOf(t, c).Cmp(ratOf(t, strings.TrimPrefix(s, "+"))) != 0 {
				t.Fatalf("ParseNumber(%q) = %q changes the value", s, c)
			}
		}
		k := EncodeKey(N(c))
		if back, err := DecodeKey(TypeN, k); err != nil || back.S != c {
			t.Fatalf("key round trip of %q gave %q, %v", c, back.S, err)
		}
	})
}
