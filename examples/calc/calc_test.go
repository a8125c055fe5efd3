package calc

import "testing"

func TestSum(t *testing.T) {
	for _, c := range []struct{ n, want int }{{-1, 0}, {0, 0}, {1, 1}, {3, 6}, {10, 55}} {
		if got := Sum(c.n); got != c.want {
			t.Errorf("Sum(%d) = %d, want %d", c.n, got, c.want)
		}
	}
}

func TestMean(t *testing.T) {
	if got := Mean(nil); got != 0 {
		t.Errorf("Mean(nil) = %v, want 0", got)
	}
	if got := Mean([]float64{1, 2, 3, 4}); got != 2.5 {
		t.Errorf("Mean(1, 2, 3, 4) = %v, want 2.5", got)
	}
}
