package registry

// SetReauditSpill makes the re-audit keep at most spoolLimit bytes of
// domain records and runLen label fingerprints in memory, and only fpBits
// bits of each fingerprint (so that they collide), until the returned
// function puts the defaults back: the tests run the spilled paths and
// the checks of collisions on small zones.
func SetReauditSpill(spoolLimit, runLen int, fpBits uint) (restore func()) {
	old := reauditTuning
	reauditTuning.spoolLimit, reauditTuning.runLen = spoolLimit, runLen
	reauditTuning.fpMask = 1<<fpBits - 1
	return func() { reauditTuning = old }
}

// PickPrice is pickPrice, for TestPickPrice.
var PickPrice = pickPrice

// StoreOf is a service's store, for tests.
func StoreOf(s *Service) Store { return s.store }
