package item

import (
	"github.com/extenddb/extenddb/internal/ddberr"
)

// DynamoDB numbers are exact decimals of up to 38 significant digits whose
// magnitude lies between 1E-130 and 9.9999999999999999999999999999999999999E+125
// (or is zero). See
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/HowItWorks.NamingRulesDataTypes.html#HowItWorks.DataTypes.Number
//
// Numbers are held as canonical decimal text: no exponent, no leading zeros,
// no trailing fractional zeros, no trailing '.', a '-' only for negatives and
// "0" for zero. Canonical text compares equal exactly when the numbers are
// equal, so the text is also the number's identity in sets and keys.

const (
	maxNumberDigits = 38   // significant digits
	maxNumberExp    = 125  // largest exponent of the most significant digit
	minNumberExp    = -130 // smallest exponent of the most significant digit
	maxCanonicalLen = 176  // longest canonical text ("-0." + 129 zeros + 38 digits is 170)
	expSaturation   = 1 << 40
)

// DynamoDB's messages for numbers it will not store. Observed in responses of
// the service; see the test cases for the sources. Text that is not a number
// gets msgNumberSyntax followed by ": " and the text (DynamoDB answered "The
// parameter cannot be converted to a numeric value: NaN" in
// https://github.com/internetarchive/internet-archive-voice-apps/issues/225),
// or the bare message for empty text. DynamoDB Local has been seen to answer
// "A value provided cannot be converted into a number" instead
// (https://github.com/guregu/dynamo/issues/164); the service's wording is the
// one used here.
const (
	msgNumberSyntax    = "The parameter cannot be converted to a numeric value"
	msgNumberOverflow  = "Number overflow. Attempting to store a number with magnitude larger than supported range"
	msgNumberUnderflow = "Number underflow. Attempting to store a number with magnitude smaller than supported range"
	msgNumberPrecision = "Attempting to store more than 38 significant digits in a Number"
)

// numErr classifies why a text is not a storable number.
type numErr uint8

const (
	numOK numErr = iota
	numSyntax
	numOverflow
	numUnderflow
	numPrecision
)

// decimal is a parsed number: ±0.d[0]d[1]…d[n-1] × 10^pt, with d[0] and
// d[n-1] non-zero. n is 0 for zero. When the text had more than 38
// significant digits n still counts them all but only the first 38 are kept.
type decimal struct {
	neg bool
	n   int
	pt  int
	d   [maxNumberDigits]byte // ASCII digits
}

// exp is the decimal exponent of the most significant digit.
func (x *decimal) exp() int { return x.pt - 1 }

// parseDecimal reads number text in the syntax DynamoDB accepts (that of
// Java's BigDecimal): an optional sign, digits with an optional '.', at least
// one digit, and an optional exponent 'e' or 'E' with an optional sign. No
// whitespace, "NaN" or "Infinity". It checks range before precision, as
// DynamoDB does.
func parseDecimal(s string) (x decimal, e numErr) {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		x.neg = s[i] == '-'
		i++
	}
	seq, intDigits := 0, 0 // digits seen in total and before the '.'
	first, last := -1, -1  // positions in the digit sequence of the outer non-zero digits
	for pass := 0; pass < 2; pass++ {
		for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
			c := s[i]
			if c != '0' {
				if first < 0 {
					first = seq
				}
				last = seq
			}
			if first >= 0 && seq-first < maxNumberDigits {
				x.d[seq-first] = c
			}
			seq++
		}
		if pass == 0 {
			intDigits = seq
			if i < len(s) && s[i] == '.' {
				i++
				continue
			}
			break
		}
	}
	if seq == 0 {
		return decimal{}, numSyntax
	}
	exp := 0
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		eneg := false
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			eneg = s[i] == '-'
			i++
		}
		if i >= len(s) || s[i] < '0' || s[i] > '9' {
			return decimal{}, numSyntax
		}
		for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
			if exp < expSaturation {
				exp = exp*10 + int(s[i]-'0')
			}
		}
		if eneg {
			exp = -exp
		}
	}
	if i != len(s) {
		return decimal{}, numSyntax
	}
	if first < 0 {
		return decimal{}, numOK // zero, whatever its sign or exponent
	}
	x.n = last - first + 1
	x.pt = intDigits - first + exp
	switch {
	case x.exp() > maxNumberExp:
		return x, numOverflow
	case x.exp() < minNumberExp:
		return x, numUnderflow
	case x.n > maxNumberDigits:
		return x, numPrecision
	}
	return x, numOK
}

// appendText appends x's canonical text. x must hold at most 38 digits.
func (x *decimal) appendText(b []byte) []byte {
	if x.n == 0 {
		return append(b, '0')
	}
	if x.neg {
		b = append(b, '-')
	}
	digits := x.d[:x.n]
	switch {
	case x.pt <= 0:
		b = append(b, '0', '.')
		for j := x.pt; j < 0; j++ {
			b = append(b, '0')
		}
		b = append(b, digits...)
	case x.pt >= x.n:
		b = append(b, digits...)
		for j := x.n; j < x.pt; j++ {
			b = append(b, '0')
		}
	default:
		b = append(b, digits[:x.pt]...)
		b = append(b, '.')
		b = append(b, digits[x.pt:]...)
	}
	return b
}

// numberMessage is DynamoDB's message for text that is not a storable number.
func numberMessage(e numErr, text string) string {
	switch e {
	case numOverflow:
		return msgNumberOverflow
	case numUnderflow:
		return msgNumberUnderflow
	case numPrecision:
		return msgNumberPrecision
	}
	if text == "" {
		return msgNumberSyntax
	}
	return msgNumberSyntax + ": " + text
}

// canonicalNumber parses s and returns its canonical text, reusing s when it
// already is canonical. On failure it returns DynamoDB's message.
func canonicalNumber(s string) (string, string) {
	x, e := parseDecimal(s)
	if e != numOK {
		return "", numberMessage(e, s)
	}
	var buf [maxCanonicalLen]byte
	b := x.appendText(buf[:0])
	if string(b) == s {
		return s, ""
	}
	return string(b), ""
}

// ParseNumber validates DynamoDB number text and returns its canonical form:
// no leading zeros, no trailing fractional zeros, no exponent, "-" only for
// negatives, "0" for zero ("1.50E2" is "150", "-.5" is "-0.5", "-0" is "0").
// Up to 38 significant digits, magnitude 1E-130 to
// 9.9999999999999999999999999999999999999E+125. Errors are ValidationException
// (*ddberr.Error) with DynamoDB's messages. When s is already canonical it is
// returned without copying.
func ParseNumber(s string) (string, error) {
	c, msg := canonicalNumber(s)
	if msg != "" {
		return "", ddberr.Validation(msg)
	}
	return c, nil
}

// IsCanonicalNumber reports whether s is a valid number already in the
// canonical form ParseNumber returns.
func IsCanonicalNumber(s string) bool {
	c, msg := canonicalNumber(s)
	return msg == "" && c == s
}

// sign returns -1, 0 or +1.
func (x *decimal) sign() int {
	switch {
	case x.n == 0:
		return 0
	case x.neg:
		return -1
	}
	return 1
}

// cmpMagnitude compares |x| and |y|, both non-zero.
func cmpMagnitude(x, y *decimal) int {
	if x.pt != y.pt {
		if x.pt < y.pt {
			return -1
		}
		return 1
	}
	n := min(x.n, y.n, maxNumberDigits)
	for i := 0; i < n; i++ {
		if x.d[i] != y.d[i] {
			if x.d[i] < y.d[i] {
				return -1
			}
			return 1
		}
	}
	switch {
	case x.n < y.n:
		return -1
	case x.n > y.n:
		return 1
	}
	return 0
}

func cmpDecimal(x, y *decimal) int {
	sx, sy := x.sign(), y.sign()
	if sx != sy {
		if sx < sy {
			return -1
		}
		return 1
	}
	if sx == 0 {
		return 0
	}
	return sx * cmpMagnitude(x, y)
}

// CompareNumbers compares two numbers numerically: -1, 0 or +1. Any text
// ParseNumber accepts may be given, canonical or not; text it rejects for
// its syntax compares as zero.
func CompareNumbers(a, b string) int {
	if a == b {
		return 0
	}
	x, _ := parseDecimal(a)
	y, _ := parseDecimal(b)
	return cmpDecimal(&x, &y)
}

// AddNumbers returns a+b in canonical form. An operand that is not a valid
// number is rejected with its own ValidationException. A sum beyond the
// supported range is "Number overflow..." or "Number underflow...", and a sum
// needing more than 38 significant digits (1E+50 + 1, say) is also reported
// as "Number overflow. Attempting to store a number with magnitude larger
// than supported range": DynamoDB does not round, and that is the message it
// gives for such a sum (observed against DynamoDB by ScyllaDB's Alternator
// tests, test_update_expression_plus_imprecise in
// https://github.com/scylladb/scylladb/blob/master/test/alternator/test_number.py).
func AddNumbers(a, b string) (string, error) { return addNumbers(a, b, false) }

// SubtractNumbers returns a-b like AddNumbers.
func SubtractNumbers(a, b string) (string, error) { return addNumbers(a, b, true) }

// sumWidth bounds the digit positions of a sum of two valid numbers: powers
// from 10^126 (a carry out of 10^125) down to 10^-167 (the 38th digit of a
// number whose first is at 10^-130).
const sumWidth = 2 + maxNumberExp - minNumberExp + maxNumberDigits

func addNumbers(a, b string, subtract bool) (string, error) {
	x, e := parseDecimal(a)
	if e != numOK {
		return "", ddberr.Validation(numberMessage(e, a))
	}
	y, e := parseDecimal(b)
	if e != numOK {
		return "", ddberr.Validation(numberMessage(e, b))
	}
	if subtract && y.n > 0 {
		y.neg = !y.neg
	}
	if x.n == 0 || y.n == 0 {
		if x.n == 0 {
			x = y
		}
		var buf [maxCanonicalLen]byte
		return string(x.appendText(buf[:0])), nil
	}
	// Digit j of acc has the power hi-j; slot 0 takes a carry.
	hi := max(x.pt, y.pt)
	var acc, other [sumWidth]int8
	place := func(dst *[sumWidth]int8, v *decimal) {
		off := hi - v.pt + 1
		for i := 0; i < v.n; i++ {
			dst[off+i] = int8(v.d[i] - '0')
		}
	}
	neg := x.neg
	if x.neg == y.neg {
		place(&acc, &x)
		place(&other, &y)
		for j := sumWidth - 1; j > 0; j-- {
			acc[j] += other[j]
			if acc[j] >= 10 {
				acc[j] -= 10
				acc[j-1]++
			}
		}
	} else {
		big, small := &x, &y
		switch cmpMagnitude(&x, &y) {
		case 0:
			return "0", nil
		case -1:
			big, small = &y, &x
		}
		neg = big.neg
		place(&acc, big)
		place(&other, small)
		for j := sumWidth - 1; j > 0; j-- {
			acc[j] -= other[j]
			if acc[j] < 0 {
				acc[j] += 10
				acc[j-1]--
			}
		}
	}
	first, last := -1, -1
	for j := 0; j < sumWidth; j++ {
		if acc[j] != 0 {
			if first < 0 {
				first = j
			}
			last = j
		}
	}
	var r decimal
	r.neg = neg
	r.n = last - first + 1
	r.pt = hi - first + 1
	switch {
	case r.exp() > maxNumberExp:
		return "", ddberr.Validation(msgNumberOverflow)
	case r.exp() < minNumberExp:
		return "", ddberr.Validation(msgNumberUnderflow)
	case r.n > maxNumberDigits:
		return "", ddberr.Validation(msgNumberOverflow)
	}
	for i := 0; i < r.n; i++ {
		r.d[i] = byte(acc[first+i]) + '0'
	}
	var buf [maxCanonicalLen]byte
	return string(r.appendText(buf[:0])), nil
}
