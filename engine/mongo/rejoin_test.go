package mongo

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/event"
)

// A server that holds data and becomes Unknown is a loss: each Conn's
// Rejoined says so once, and says nothing of losses before it was opened.
// Servers that hold no data, and changes that are not to Unknown, are not
// losses.
func TestRejoinedCountsLossesOnce(t *testing.T) {
	e := &Engine{}
	change := func(from, to string) {
		e.serverChanged(&event.ServerDescriptionChangedEvent{
			PreviousDescription: event.ServerDescription{Kind: from},
			NewDescription:      event.ServerDescription{Kind: to}})
	}
	change("RSPrimary", "Unknown") // before either Conn
	a, b := &Conn{e: e, losses: e.losses.Load()}, &Conn{e: e, losses: e.losses.Load()}
	if a.Rejoined() {
		t.Fatal("a Conn reports a loss from before it was opened")
	}
	for _, c := range [][2]string{
		{"Unknown", "RSSecondary"}, {"RSSecondary", "RSPrimary"}, {"RSArbiter", "Unknown"},
		{"RSGhost", "Unknown"}, {"Unknown", "Unknown"}, {"RSPrimary", "RSSecondary"},
	} {
		change(c[0], c[1])
		if a.Rejoined() {
			t.Fatalf("%s → %s counted as a loss", c[0], c[1])
		}
	}
	for _, from := range []string{"Standalone", "RSPrimary", "RSSecondary", "Mongos"} {
		change(from, "Unknown")
		if !a.Rejoined() {
			t.Fatalf("%s → Unknown not counted as a loss", from)
		}
		if a.Rejoined() {
			t.Fatalf("%s → Unknown reported twice", from)
		}
	}
	change("RSPrimary", "Unknown")
	change("Standalone", "Unknown")
	if !b.Rejoined() || b.Rejoined() {
		t.Fatal("a Conn that was not asked between losses must report them once")
	}
}
