package pipebench

import (
	"github.com/pipebench/pipebench/internal/child"
	"github.com/pipebench/pipebench/internal/tokens"
)

// The reading process and its writer process talk over the control socket
// of internal/child: the writerSetup is the child's configuration, write
// ends travel as its descriptors, and these are the writer's own messages.
// Credits do not use it: they go through the credit pipe, whose end also
// travels there.
const (
	msgStart  child.Kind = 'G' // reader → writer: start writing
	msgReady  child.Kind = 'R' // writer → reader: every descriptor received
	msgReport child.Kind = 'P' // writer → reader: writerReport, then it exits
)

type writerSetup struct {
	Pipes     int    `json:"pipes"`
	InFlight  int    `json:"in_flight"`
	Route     Route  `json:"route"`
	RouteSeed uint64 `json:"seed"`
	Latency   bool   `json:"latency"`
	Source    Source `json:"source"`
	// Rate makes the writer open-loop (Config.Rate); its schedule's T0
	// comes in the start message, when the window opens.
	Rate float64 `json:"rate,omitempty"`
	// CPU pins the writing thread; -1 leaves it free.
	CPU int `json:"cpu"`
	// CloseAtStop: close every write end as soon as the writer stops, so
	// that a reader waiting in a blocking read for a token that will never
	// come gets end of file (the bypass: FollowsRoute).
	CloseAtStop bool `json:"close_at_stop"`
}

// writerStart is the start message's body: an open-loop writer's
// schedule begins at T0 (tokens.Schedule).
type writerStart struct {
	T0 int64 `json:"t0_ns"`
}

// writerReady is the writer process's answer once it holds every write end.
type writerReady struct {
	TID int `json:"tid"`
}

// writerReport is what a writer says when it stops: its counts (see
// tokens.Writer).
type writerReport struct {
	tokens.WriterCounts
	// LastTick is an open-loop writer's clock at its last tick
	// (tokens.Writer.LastTick).
	LastTick int64 `json:"last_tick_ns,omitempty"`
	// Thread is the writing thread's usage; Process is the writer process's
	// (process mode only).
	Thread  Usage `json:"thread"`
	Process Usage `json:"process"`
}

// msgNames name the kinds in errors.
var msgNames = map[child.Kind]string{msgStart: "start", msgReady: "ready", msgReport: "report"}
