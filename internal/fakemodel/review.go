package fakemodel

import "encoding/json"

// ReviewFinding is one finding of a review answer.
type ReviewFinding struct {
	Title string // with or without a "[P1] " prefix, as models write it
	Body  string
	// Priority is 0 to 3.
	Priority int
	// Path is absolute; Start and End are 1-based lines.
	Path       string
	Start, End int
}

// Review is the answer to a review request (codex's review/start): the JSON its review prompt asks
// the model for, which codex renders into the exitedReviewMode item's text.
func Review(explanation string, findings ...ReviewFinding) Reply {
	type lineRange struct {
		Start int `json:"start"`
		End   int `json:"end"`
	}
	type location struct {
		Path  string    `json:"absolute_file_path"`
		Range lineRange `json:"line_range"`
	}
	type finding struct {
		Title      string   `json:"title"`
		Body       string   `json:"body"`
		Confidence float64  `json:"confidence_score"`
		Priority   int      `json:"priority"`
		Location   location `json:"code_location"`
	}
	out := struct {
		Findings    []finding `json:"findings"`
		Correctness string    `json:"overall_correctness"`
		Explanation string    `json:"overall_explanation"`
		Confidence  float64   `json:"overall_confidence_score"`
	}{Findings: []finding{}, Correctness: "patch is correct", Explanation: explanation, Confidence: 0.8}
	for _, f := range findings {
		out.Findings = append(out.Findings, finding{
			Title: f.Title, Body: f.Body, Confidence: 0.8, Priority: f.Priority,
			Location: location{Path: f.Path, Range: lineRange{Start: f.Start, End: f.End}},
		})
		out.Correctness = "patch is incorrect"
	}
	b, _ := json.Marshal(out)
	return Message(string(b))
}
