package lsp

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/hermes-lsp/hermes-lsp/agenthost"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
)

// TestWireEventMirrorsHost: hermes/turnEvent's event, converted from the host's, has the JSON the
// host's type has, for an event with every field set (down to the last nested one), for the empty
// event, and for empty lists. A field added to agenthost.Event or a type it holds, and not carried
// over by wireEvent, fails here; so does a tag that differs. The other way round holds too: the
// wire JSON decodes into agenthost.Event and encodes back unchanged.
func TestWireEventMirrorsHost(t *testing.T) {
	full := agenthost.Event{}
	fill(reflect.ValueOf(&full).Elem(), 1)
	emptyLists := agenthost.Event{
		Kind: agenthost.EventTurnCompleted, Plan: []agenthost.PlanStep{}, Approval: &agenthost.Approval{Changes: []agenthost.FileChange{}},
		Result: &agenthost.Result{Messages: []agenthost.Message{{ToolCalls: []agenthost.ToolCall{}}}},
	}
	for name, ev := range map[string]agenthost.Event{"full": full, "zero": {}, "empty lists": emptyLists} {
		t.Run(name, func(t *testing.T) {
			host, err := json.Marshal(ev)
			if err != nil {
				t.Fatal(err)
			}
			wire, err := json.Marshal(wireEvent(ev))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(host, wire) {
				t.Fatalf("the wire event differs from the host's:\nhost %s\nwire %s", host, wire)
			}
			var back agenthost.Event
			if err := json.Unmarshal(wire, &back); err != nil {
				t.Fatal(err)
			}
			again, err := json.Marshal(back)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(again, wire) {
				t.Fatalf("the wire event does not decode into agenthost.Event unchanged:\nwire  %s\nagain %s", wire, again)
			}
		})
	}
	if !bytes.Contains(mustMarshal(t, full), []byte(`"move_path":"`)) {
		t.Error("fill did not reach the nested fields") // the check above would then prove little
	}
}

// TestWireUsageMirrorsHost: hermes.status's usage has the host's JSON.
func TestWireUsageMirrorsHost(t *testing.T) {
	var u agenthost.Usage
	fill(reflect.ValueOf(&u).Elem(), 1)
	if host, wire := mustMarshal(t, u), mustMarshal(t, wireUsage(u)); !bytes.Equal(host, wire) {
		t.Fatalf("host %s\nwire %s", host, wire)
	}
}

// TestActionTitlesAreTheProtocols: the titles lsp offers are hermesproto's. (lsp declares them in
// approver.go, trust.go and codeaction.go; this pins them to the protocol's until they refer to it.)
func TestActionTitlesAreTheProtocols(t *testing.T) {
	for _, c := range []struct{ lsp, proto string }{
		{ActionDeny, hermesproto.ApprovalActionDeny},
		{ActionAllowOnce, hermesproto.ApprovalActionAllowOnce},
		{ActionAllowSession, hermesproto.ApprovalActionAllowSession},
		{ActionStop, hermesproto.ApprovalActionStop},
		{ActionShowDiff, hermesproto.ApprovalActionShowDiff},
		{ActionKeepAsking, hermesproto.TrustActionKeepAsking},
		{ActionAllow, hermesproto.TrustActionAllow},
		{TitleAskSelection, hermesproto.CodeActionTitleAskSelection},
		{TitleFixDiagnostic, hermesproto.CodeActionTitleFixDiagnostic},
		{TitleRunInstruct, hermesproto.CodeActionTitleRunInstruct},
		{TitleStopTurn, hermesproto.CodeActionTitleStopTurn},
		{TitleAllowOnce, hermesproto.CodeActionTitleAllowOnce},
		{TitleAllowSession, hermesproto.CodeActionTitleAllowSession},
		{TitleDeny, hermesproto.CodeActionTitleDeny},
		{string(agenthost.DecisionOnce), string(hermesproto.DecisionOnce)},
		{string(agenthost.DecisionSession), string(hermesproto.DecisionSession)},
		{string(agenthost.DecisionDeny), string(hermesproto.DecisionDeny)},
		{string(agenthost.DecisionStop), string(hermesproto.DecisionStop)},
		{agenthost.ApprovalExec, string(hermesproto.ApprovalKindExec)},
		{agenthost.ApprovalPatch, string(hermesproto.ApprovalKindPatch)},
	} {
		if c.lsp != c.proto {
			t.Errorf("lsp says %q, hermesproto %q", c.lsp, c.proto)
		}
	}
	kinds := []string{
		agenthost.EventTurnStarted, agenthost.EventSteered, agenthost.EventAnswerDelta, agenthost.EventReasoningDelta,
		agenthost.EventToolStarted, agenthost.EventToolOutput, agenthost.EventToolCompleted, agenthost.EventPlan,
		agenthost.EventDiff, agenthost.EventUsage, agenthost.EventCompaction, agenthost.EventApprovalWaiting,
		agenthost.EventApprovalResolved, agenthost.EventFallback, agenthost.EventError, agenthost.EventTurnCompleted,
	}
	protoKinds := []hermesproto.EventKind{
		hermesproto.EventKindTurnStarted, hermesproto.EventKindSteered, hermesproto.EventKindAnswerDelta, hermesproto.EventKindReasoningDelta,
		hermesproto.EventKindToolStarted, hermesproto.EventKindToolOutput, hermesproto.EventKindToolCompleted, hermesproto.EventKindPlan,
		hermesproto.EventKindDiff, hermesproto.EventKindUsage, hermesproto.EventKindCompaction, hermesproto.EventKindApprovalWaiting,
		hermesproto.EventKindApprovalResolved, hermesproto.EventKindFallback, hermesproto.EventKindError, hermesproto.EventKindTurnCompleted,
	}
	for i, k := range kinds {
		if string(protoKinds[i]) != k {
			t.Errorf("event kind %q in agenthost, %q in hermesproto", k, protoKinds[i])
		}
	}
}

// fill sets every field reachable from v to a value that is not its zero value, so that no field
// is left out of the JSON by omitempty. Lists get two elements.
func fill(v reflect.Value, n int) {
	switch {
	case v.Type() == reflect.TypeOf(time.Time{}):
		v.Set(reflect.ValueOf(time.Date(2026, 12, 2, 18, 25, 0, n, time.UTC)))
		return
	case v.Type() == reflect.TypeOf(json.RawMessage{}):
		v.SetBytes([]byte(`{"n":1}`))
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString("s" + v.Type().Name())
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64, reflect.Int32:
		v.SetInt(int64(n) + 41)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), n)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		for i := range 2 {
			fill(v.Index(i), n+i)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), n+i)
			}
		}
	default:
		panic("fill: no value for " + v.Type().String())
	}
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
