package compare

import (
	"encoding/json"
	"math"
)

// num is a float64 that JSON writes as null when it is not a finite
// number (an interval that needs more repetitions is infinite or NaN).
type num float64

func (x num) MarshalJSON() ([]byte, error) {
	if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
		return []byte("null"), nil
	}
	return json.Marshal(float64(x))
}

// MarshalJSON writes s with null for a bound it does not have.
func (s Summary) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		N        int      `json:"n"`
		Median   num      `json:"median"`
		Lo       num      `json:"ci_lo"`
		Hi       num      `json:"ci_hi"`
		Min      num      `json:"min"`
		Max      num      `json:"max"`
		Sittings int      `json:"sittings"`
		Warnings []string `json:"warnings,omitempty"`
	}{s.N, num(s.Median), num(s.Lo), num(s.Hi), num(s.Min), num(s.Max), s.Sittings, s.Warnings})
}

// MarshalJSON writes c with null for what it does not have.
func (c Change) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Ratio    num      `json:"change"`
		Lo       num      `json:"ci_lo"`
		Hi       num      `json:"ci_hi"`
		P        num      `json:"p"`
		Adjusted num      `json:"p_adjusted"`
		N1       int      `json:"n1"`
		N2       int      `json:"n2"`
		K1       int      `json:"sittings1"`
		K2       int      `json:"sittings2"`
		Floor    num      `json:"floor"`
		Method   Method   `json:"method"`
		Verdict  Verdict  `json:"verdict"`
		Notes    []string `json:"notes,omitempty"`
	}{num(c.Ratio), num(c.Lo), num(c.Hi), num(c.P), num(c.Adjusted), c.N1, c.N2, c.K1, c.K2, num(c.Floor), c.Method, c.Verdict, c.Notes})
}
