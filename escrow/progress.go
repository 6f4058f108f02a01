package escrow

import (
	"sync/atomic"
	"time"
)

// Progress is how far a deposit or a restore has got: the stage it is in,
// the objects it has handled in that stage and when the stage began. The
// work updates it; another goroutine reads it (the CLI prints a line
// every few seconds). A nil *Progress records nothing.
type Progress struct {
	stage   atomic.Pointer[progressStage]
	objects atomic.Int64
}

type progressStage struct {
	name  string
	began time.Time
}

// Stage returns the stage, "" before the first, and when it began.
func (p *Progress) Stage() (string, time.Time) {
	if s := p.stage.Load(); s != nil {
		return s.name, s.began
	}
	return "", time.Time{}
}

// Objects returns the objects handled in the stage so far.
func (p *Progress) Objects() int64 { return p.objects.Load() }

// begin starts a stage; its objects count from zero.
func (p *Progress) begin(name string) {
	if p == nil {
		return
	}
	if s := p.stage.Load(); s != nil && s.name == name {
		return
	}
	p.objects.Store(0)
	p.stage.Store(&progressStage{name: name, began: time.Now()})
}

// add counts n objects of the stage.
func (p *Progress) add(n int64) {
	if p != nil {
		p.objects.Add(n)
	}
}
