package text

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/pipebench/pipebench/stats"
)

// G6 prints like C++'s default ostream, as epoll_pipe_bench printed its
// samples per call: six significant digits, no trailing zeros.
func G6(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }

// Ratio prints a ratio (per event, per call, per token) or a figure of
// nanoseconds with four significant digits and never an exponent: 1.002,
// 0.3333, 0.00005466; whole from 10000 up: 31539.
func Ratio(x float64) string {
	switch a := math.Abs(x); {
	case !Finite(x):
		return "-"
	case a >= 9999.5:
		return Whole(x)
	case a >= 1e-4 || a == 0:
		return strconv.FormatFloat(x, 'g', 4, 64)
	}
	return plain(x, 4)
}

// plain prints x (not 0) in digits significant digits without an
// exponent, trailing zeros trimmed: plain(5.4661e-05, 4) is 0.00005466.
func plain(x float64, digits int) string {
	decimals := digits - 1 - int(math.Floor(math.Log10(math.Abs(x))))
	s := strconv.FormatFloat(x, 'f', max(decimals, 0), 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// Quantile prints a histogram quantile, already rounded to the digits the
// histogram holds (stats.HistDigits), without an exponent: 3, 1230.
func Quantile(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

// Whole prints a rate as a whole number: 31539.
func Whole(x float64) string { return strconv.FormatFloat(x, 'f', 0, 64) }

// Nanos prints nanoseconds as a duration with three significant digits:
// 953µs, 1.02ms; 999.6µs is 1ms.
func Nanos(x float64) string {
	x = stats.RoundSig(x, 3)
	switch a := max(x, -x); {
	case a < 1e3:
		return fmt.Sprintf("%.0fns", x)
	case a < 1e6:
		return fmt.Sprintf("%.3gµs", x/1e3)
	case a < 1e9:
		return fmt.Sprintf("%.3gms", x/1e6)
	case a < 1e12:
		return fmt.Sprintf("%.3gs", x/1e9)
	}
	return fmt.Sprintf("%.0fs", x/1e9)
}

// Num prints x in four significant digits, with k or M past ten
// thousand, and below a thousandth in three without an exponent
// (0.00000625); "-" for a figure that is not a number.
func Num(x float64) string {
	switch a := math.Abs(x); {
	case !Finite(x):
		return "-"
	case a >= 999.95e3:
		return fmt.Sprintf("%.4gM", x/1e6)
	case a >= 9999.5:
		return fmt.Sprintf("%.4gk", x/1e3)
	case a >= 1 || a == 0:
		return fmt.Sprintf("%.4g", x)
	case a >= 0.001:
		// Three significant digits: 0.00136, 0.00100.
		return strconv.FormatFloat(x, 'f', 2-int(math.Floor(math.Log10(math.Abs(x)))), 64)
	}
	return plain(x, 3)
}

// Finite says whether x can be printed as a number.
func Finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// Plural says n things: "1 interval", "2 intervals".
func Plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}
