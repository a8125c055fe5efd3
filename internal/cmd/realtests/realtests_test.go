package main

import (
	"slices"
	"testing"
)

// TestRealTestsOfTheRepository: the tests that run codex are found however they reach it (directly,
// through a helper of their folder, through the demo's setup in a file that is no test); those on
// the fake app-server are not.
func TestRealTestsOfTheRepository(t *testing.T) {
	got, err := realTests([]string{"../../../codex", "../../../agenthost", "../../../lsp", "../../../cmd", "../../../internal"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"TestRealResumeThreadChecksTheFolder", // codextest.NewReal in the test
		"TestRealPlainTurn",                   // through startReal, a helper
		"TestDoctorGood",                      // cmd/hermes-lsp
		"TestNodeClientApprovalGatedTurn",     // lsp
		"TestDemoInterrupt",                   // internal/demo: codex.PinnedBinary in a helper
		"TestSchemaMatchesCodex",
	} {
		if !slices.Contains(got, want) {
			t.Errorf("%s is not found: %v", want, got)
		}
	}
	for _, fake := range []string{"TestThreadLookupIgnoresTheCodexFilter", "TestCodexReleaseOutsideRangeToldOnce", "TestInterruptTurnTimesOut", "TestMain"} {
		if slices.Contains(got, fake) {
			t.Errorf("%s, which runs no codex, is found", fake)
		}
	}
}
