// Package calc is the example workspace of `hermes-demo`: a tiny package with one bug for the
// agent to find and fix.
package calc

// Sum returns 1 + 2 + ... + n, the sum of the first n positive integers (0 when n < 1).
func Sum(n int) int {
	total := 0
	for i := 1; i < n; i++ {
		total += i
	}
	return total
}

// Mean returns the arithmetic mean of xs, and 0 for no numbers.
func Mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	var sum float64
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs))
}
