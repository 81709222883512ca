package stats

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Sample describes a sample of values (the evts/sec of a run's intervals
// after warm-up, the medians of several runs): its size, centre and spread.
// Every field is finite, so a Sample always encodes as JSON.
type Sample struct {
	// N is the number of finite values described.
	N int `json:"n"`
	// Median is the middle value; for an even N, the mean of the two middle
	// values.
	Median float64 `json:"median"`
	Mean   float64 `json:"mean"`
	// StdDev is the sample standard deviation (divisor N-1); 0 when N < 2.
	StdDev float64 `json:"std_dev"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
	// CILow and CIHigh bound the 95% confidence interval of the mean, from
	// Student's t with N-1 degrees of freedom. With N = 1 both equal the value.
	CILow  float64 `json:"ci_low"`
	CIHigh float64 `json:"ci_high"`
	// CV is the coefficient of variation, StdDev / |Mean|; 0 when Mean is 0.
	CV float64 `json:"cv"`
	// Noisy reports CV > CVThreshold.
	Noisy bool `json:"noisy"`
	// CVThreshold is the threshold Noisy was judged against (pipebench: 0.05).
	CVThreshold float64 `json:"cv_threshold"`
	// Skipped counts the NaN and infinite inputs left out.
	Skipped int `json:"skipped,omitempty"`
}

// ConfidenceLevel is the two-sided level of Sample's confidence interval.
const ConfidenceLevel = 0.95

// Describe describes xs, marking the sample Noisy when its coefficient of
// variation exceeds noisyCV. NaN and infinite values are skipped and counted
// in Skipped. An empty sample gives a zero Sample with N = 0. xs is not
// modified. The sums involved must stay finite (magnitudes well below 1e300).
func Describe(xs []float64, noisyCV float64) Sample {
	s := Sample{CVThreshold: noisyCV}
	sorted := make([]float64, 0, len(xs))
	for _, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			s.Skipped++
			continue
		}
		sorted = append(sorted, x)
	}
	n := len(sorted)
	s.N = n
	if n == 0 {
		return s
	}
	slices.Sort(sorted)
	s.Min, s.Max = sorted[0], sorted[n-1]
	s.Median = median(sorted)
	if n == 1 {
		// gonum's unbiased variance divides by n-1 = 0; one value has no spread.
		s.Mean = sorted[0]
		s.CILow, s.CIHigh = s.Mean, s.Mean
		return s
	}
	s.Mean, s.StdDev = stat.MeanStdDev(sorted, nil)
	half := tCritical(n) * stat.StdErr(s.StdDev, float64(n))
	s.CILow, s.CIHigh = s.Mean-half, s.Mean+half
	if s.Mean != 0 {
		s.CV = s.StdDev / math.Abs(s.Mean)
	}
	s.Noisy = s.CV > noisyCV
	return s
}

// median returns the median of a sorted, non-empty sample. It is computed
// here because neither of gonum's quantile kinds averages the two middle
// values of an even-length sample: Empirical and LinInterp both return the
// lower one at p = 0.5.
func median(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	// Halving first cannot overflow.
	return sorted[n/2-1]/2 + sorted[n/2]/2
}

// tCritical returns the two-sided 95% critical value of Student's t for a
// sample of n >= 2 values (n-1 degrees of freedom).
func tCritical(n int) float64 {
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}
	return t.Quantile(1 - (1-ConfidenceLevel)/2)
}
