package registry

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/net/idna"
	"golang.org/x/text/unicode/norm"
)

// ImportOutcome is what an import did with one name.
type ImportOutcome int

// The outcomes of an imported name.
const (
	ImportRegistered ImportOutcome = iota + 1 // conflicts with nothing: registered
	ImportExempted                            // conflicts with a registered or earlier name: kept, exempted with it
	ImportDuplicate                           // the same name is registered already (earlier in the file, or before)
	// ImportRefusedConflict: with ImportBatch.RefuseConflicts, the name's
	// conflict set meets a name another registrar holds (or an earlier
	// name of the file of another registrar): nothing is written.
	ImportRefusedConflict
)

// ImportItem is one judged name of an import, for Importer.ImportBatch.
type ImportItem struct {
	Line        int64
	Domain      ImportDomain
	RegistrarID int64
	// Contacts are the name's contacts, linked when it is written
	// (registered or exempted).
	Contacts []ImportContact
	// Set by ImportBatch:
	Outcome    ImportOutcome
	ExemptWith []string // for ImportExempted: the domains it conflicts with (label.zone); for ImportRefusedConflict, the other registrars' it meets
}

// ImportDomain is the domain of an ImportItem: the fields of a Domain
// that an import sets (the zone and the registrar are the batch's and
// the item's). Two batches of judged names are in memory while an import
// runs: with the whole Domain (delegation, contacts, the lifecycle, none
// of them set by an import) an item took 544 bytes before its strings,
// with this 240 (docs/import.md, "Memory").
type ImportDomain struct {
	ID          int64
	Name        string // label.zone, U-labels (NFC)
	ALabel      string // label.zone, A-labels
	Label       string // the second-level U-label
	Lang        string
	Created     time.Time
	Expires     time.Time // zero: none (the domain does not expire)
	Blocks      []string  // the conflict set
	DataVersion string
	Legacy      []string // the rule codes of a legacy name (AllowInvalid)
	Exempted    bool     // set by ImportBatch
}

// ImportBatch is the names of some lines of an import, written in one
// transaction together with the checkpoint (the last line the batch
// covers), so that an import interrupted at any point leaves a consistent
// database and resumes after the last batch committed.
type ImportBatch struct {
	Source   string // the import's identity: SHA-256 of the file
	Zone     string
	LastLine int64
	Done     bool   // the last batch of the file
	Note     string // for the audit log: what the batch did apart from Items
	Items    []*ImportItem
	// RefuseConflicts: a name whose conflict set meets a name of another
	// registrar is ImportRefusedConflict, not exempted (akshara import
	// -conflicts refuse); names of one registrar are exempted with each
	// other as without it.
	RefuseConflicts bool
	// Ahead is what the store looked up of the batch's labels before its
	// transaction (ImportAheader), or nil.
	Ahead any
}

// ImportAheader is implemented by importers that can look up a batch's
// labels ahead of its transaction, on a connection of their own, while
// the previous batch is written (docs/import.md, "How a batch is
// decided"). ImportAhead sets b.Ahead; ImportBatch then uses it only if
// it can prove, inside the batch's transaction, that nothing but the
// previous batch changed what it read, and looks up again if not. An
// error is not the import's: the batch looks up in its transaction.
type ImportAheader interface {
	ImportAhead(ctx context.Context, b *ImportBatch) error
}

// Importer is implemented by stores that can bulk import (package
// internal/sqlstore: SQLite and PostgreSQL).
type Importer interface {
	// RegistrarIDs returns the IDs of those of names that exist.
	RegistrarIDs(ctx context.Context, names []string) (map[string]int64, error)
	// ImportCheckpoint returns the last line of source committed into zone
	// (0 if none) and whether the import of source finished.
	ImportCheckpoint(ctx context.Context, source, zone string) (line int64, done bool, err error)
	// ImportBatch writes b in one transaction: in the order of b.Items, a
	// name already registered (a domain with the same label in the zone,
	// or an earlier item) is ImportDuplicate and changes nothing; a name
	// whose conflict set meets a label held (by a registered domain, an
	// exempted domain's set or an earlier item) is inserted exempted with
	// those domains (Store.CreateExemptDomain), or, with
	// b.RefuseConflicts, is ImportRefusedConflict (nothing written) if one
	// of those domains is another registrar's; any other is registered
	// with its whole conflict set. A name written is linked to its
	// Contacts. It sets each item's Outcome, records the
	// checkpoint and an audit entry. The unique indexes decide: a batch
	// that loses a race with a concurrent create is retried.
	ImportBatch(ctx context.Context, b *ImportBatch) error
	// ImportBatchSize is the store's default number of names per batch.
	ImportBatchSize() int
}

// ImportOptions are the options of Service.Import.
type ImportOptions struct {
	Zone         string // the zone names are imported into (U-label or A-label)
	Registrar    string // the registrar of records that name none
	AllowInvalid bool   // keep names the policy refuses, as legacy
	// AllowReserved imports a name whose conflict set meets a label the
	// registry operator reserved (akshara reserve add) like any other;
	// without it such a name is refused with RESERVED, as a create is.
	AllowReserved    bool
	CreateRegistrars bool // create the registrars the file names that do not exist
	Restart          bool // walk the whole file again, ignoring the checkpoint
	// Batched writes the file in batches even into a zone whose family
	// holds nothing, where it would otherwise be built in one transaction
	// (ImportBuilder): an interrupted build keeps nothing, batches keep
	// what they committed and resume after it.
	Batched   bool
	BatchSize int // names per transaction (0: the store's ImportBatchSize)
	Workers   int // goroutines judging names (0: one per core)
	Progress  *ImportProgress
	// Refused, if set, is called (from one goroutine, in file order) for
	// each record not imported and each duplicate.
	Refused func(ImportRefusal)
	// AheadHook, for tests, is called with each batch but the first
	// before the store looks it up ahead of its transaction (done false)
	// and after (done true), while the previous batch is written.
	AheadHook func(b *ImportBatch, done bool)
	// StageHook, for tests, is called with each stage a built import
	// (ImportBuilder) enters after reading the file, when it enters it:
	// "deciding", "writing the domains", "writing the conflict sets",
	// "building the indexes" (the last two in the store's transaction),
	// "done".
	StageHook func(stage string)
	// Contacts, if set, opens a contacts file (ReadImportContacts) whose
	// contacts are created, each as its registrar, before the names are
	// read (docs/import.md, "Contacts").
	Contacts func() (io.ReadCloser, error)
	// ContactsExempt: the zone's required contacts do not bind this
	// import (akshara import -contacts-exempt): names without them are
	// imported. The contacts a record names are checked all the same.
	ContactsExempt bool
	// Conflicts is what becomes of a name whose conflict set meets a
	// registered (or earlier) name: "exempt" (or ""), kept exempted with
	// it; "refuse", refused (CONFLICT) if that name is another
	// registrar's, exempted if it is the same registrar's.
	Conflicts string

	// set by Import for judgeChunk: the contacts the file names, and
	// whether the zone's required contacts bind the import
	known map[string]importContactRef
	binds bool
}

// The import's conflict modes (ImportOptions.Conflicts).
const (
	ImportConflictsExempt = "exempt"
	ImportConflictsRefuse = "refuse"
)

// ImportStage is a stage of a built import and how long it took; the
// first, "reading and judging", ends when ImportProgress.Stage is first
// set.
type ImportStage struct {
	Stage   string        `json:"stage"`
	Elapsed time.Duration `json:"elapsed_ns"`
}

// ImportProgress is updated while an import runs (for a progress bar).
type ImportProgress struct {
	Lines atomic.Int64 // records done (written, refused or skipped)
	Bytes atomic.Int64 // bytes of the file done
	Total atomic.Int64 // bytes of the file (known after the first pass)
	// Stage is what a built import (ImportBuilder) does once it has read
	// and judged the file, nil before and for batches; Written and
	// ToWrite count its domains written.
	Stage            atomic.Pointer[string]
	Written, ToWrite atomic.Int64
}

// ImportRefusal is a record an import did not register.
type ImportRefusal struct {
	File   string `json:"file,omitempty"` // "contacts" for a line of the contacts file
	Line   int64  `json:"line"`
	Name   string `json:"name"`
	Code   string `json:"code"` // the first code; DUPLICATE for a duplicate
	Reason string `json:"reason"`
}

// CodeDuplicate marks a duplicate in ImportRefusal.
const CodeDuplicate = "DUPLICATE"

// CodeCount is a count of names by code.
type CodeCount struct {
	Code  string `json:"code"`
	Count int64  `json:"count"`
}

// ImportSummary is what an import did.
type ImportSummary struct {
	Source      string `json:"source"` // SHA-256 of the file
	Zone        string `json:"zone"`
	DataVersion string `json:"data_version"`
	Records     int64  `json:"records"` // records in the file (blank lines, comments and header excluded)
	// Skipped is the records an earlier run of the same file committed
	// (resumed after its checkpoint).
	Skipped    int64 `json:"skipped"`
	Registered int64 `json:"registered"`
	Exempted   int64 `json:"exempted"`
	// Legacy is the names kept though the policy refuses them
	// (-allow-invalid); they are also counted as registered or exempted.
	Legacy     int64 `json:"legacy"`
	Duplicates int64 `json:"duplicates"`
	Refused    int64 `json:"refused"`
	// The contacts file's contacts: created, there already (the same id
	// and registrar: left as they are), refused.
	ContactsCreated  int64 `json:"contacts_created,omitempty"`
	ContactsExisting int64 `json:"contacts_existing,omitempty"`
	ContactsRefused  int64 `json:"contacts_refused,omitempty"`
	// Linked is the names written with contacts.
	Linked int64 `json:"linked,omitempty"`
	// WithoutExpiry is the domains written (registered or exempted)
	// whose record gave no expiry date: stored with none, the lifecycle
	// never expires them until one is given.
	WithoutExpiry int64 `json:"without_expiry"`
	// RefusedByCode counts refused names by code (a name that breaks two
	// rules counts under both), most frequent first.
	RefusedByCode []CodeCount `json:"refused_by_code"`
	// LegacyByCode counts the legacy names by the rules they break.
	LegacyByCode      []CodeCount       `json:"legacy_by_code,omitempty"`
	RegistrarsCreated map[string]string `json:"registrars_created,omitempty"` // name -> API token (shown once)
	Batches           int               `json:"batches"`
	// Built says the import was built: judged whole and written in one
	// transaction into a zone whose family held nothing (ImportBuilder).
	Built bool `json:"built,omitempty"`
	// ReferenceChecks says how the store checked the references of the
	// rows written ("per batch", or "per row: " and why), if it has more
	// than one way (docs/import.md, "Reference checks").
	ReferenceChecks string `json:"reference_checks,omitempty"`
	// LookAhead says how many batches were decided on the lookups done
	// ahead of their transaction and how many looked up again in it
	// (something else had committed), if the store looks ahead
	// (docs/import.md, "How a batch is decided").
	LookAhead string `json:"look_ahead,omitempty"`
	// Elapsed and Rate are filled by the caller, which times the import
	// (SetElapsed): the registry's domain logic reads no wall clock, only
	// the service's Clock.
	Elapsed time.Duration `json:"elapsed_ns"`
	// Stages are the stages of a built import and how long each took,
	// filled by the caller, which watches ImportProgress.Stage.
	Stages []ImportStage `json:"stages,omitempty"`
	Rate   float64       `json:"names_per_second"` // records of this run per second
}

// SetElapsed sets Elapsed to d and Rate to the records of this run (not
// skipped) per second of it.
func (s *ImportSummary) SetElapsed(d time.Duration) {
	s.Elapsed, s.Rate = d, 0
	if secs := d.Seconds(); secs > 0 {
		s.Rate = float64(s.Records-s.Skipped) / secs
	}
}

// ErrImportRegistrars is returned (before anything is written) when the
// file names registrars that do not exist and CreateRegistrars is off.
var ErrImportRegistrars = errors.New("the import file names registrars that do not exist")

type importChunk struct {
	recs  []*ImportRecord // nil once judged
	n     int             // records of the chunk
	last  int64           // last line covered
	bytes int64           // offset after the chunk
	done  bool
	out   chan *judgedChunk
}

type judgedChunk struct {
	items    []*ImportItem
	refusals []ImportRefusal
	codes    map[string]int64
	legacy   map[string]int64 // legacy names by code
	nlegacy  int64
}

// Import imports the names of a file into a zone (docs/import.md): each
// name is judged by the policy like a create; a valid name that conflicts
// with nothing is registered, one that conflicts with a registered or
// earlier name is kept exempted with it, one the policy refuses is
// counted by rule code (or kept as legacy with AllowInvalid). open is
// called twice: a first pass reads the registrars the file names and
// hashes it; nothing is written if a registrar is missing. The import
// commits batches of names with a checkpoint: run again on the same file,
// it resumes after the last batch committed and changes nothing that is
// already there. Into a zone whose family holds nothing, a store that
// can (ImportBuilder) has the import built instead: the whole file judged
// and decided first, then written in one transaction, all or nothing
// (importbuild.go; Batched keeps batches). Records without a created date are created at the
// service's clock's time; the summary's Elapsed and Rate are left to the
// caller, which times the call (ImportSummary.SetElapsed).
func (s *Service) Import(ctx context.Context, open func() (io.ReadCloser, error), opts ImportOptions) (*ImportSummary, error) {
	imp, ok := s.store.(Importer)
	if !ok {
		return nil, fmt.Errorf("the store cannot bulk import")
	}
	zone := s.zones[norm.NFC.String(opts.Zone)]
	if zone == nil {
		zone = s.zones[strings.ToLower(opts.Zone)]
	}
	if zone == nil {
		return nil, Errorf(CodeUnknownZone, "there is no zone %q", opts.Zone)
	}
	if opts.Workers <= 0 {
		opts.Workers = runtime.GOMAXPROCS(0)
	}
	if opts.Progress == nil {
		opts.Progress = &ImportProgress{}
	}
	switch opts.Conflicts {
	case "", ImportConflictsExempt, ImportConflictsRefuse:
	default:
		return nil, fmt.Errorf("conflicts %q: exempt or refuse", opts.Conflicts)
	}
	refuseConflicts := opts.Conflicts == ImportConflictsRefuse
	opts.binds = !opts.ContactsExempt && s.contactPolicyBinds(WithChannel(ctx, Channel{Name: "import"}))
	sum := &ImportSummary{Zone: zone.Name, DataVersion: s.version}
	var contactRows []ImportContactRow
	if opts.Contacts != nil {
		rc, err := opts.Contacts()
		if err != nil {
			return nil, err
		}
		contactRows, err = ReadImportContacts(rc)
		rc.Close()
		if err != nil {
			return nil, err
		}
	}
	// the zone's reserved labels, read once: a name whose conflict set
	// meets one is refused with RESERVED (a label reserved while the
	// import runs is not seen by it)
	var reserved map[string]bool
	if !opts.AllowReserved {
		list, err := s.store.ReservedNames(ctx, zone.Name)
		if err != nil {
			return nil, err
		}
		reserved = make(map[string]bool, len(list))
		for _, r := range list {
			reserved[r.Label] = true
		}
	}

	// Pass 1: the registrars, the hash, the size.
	contactIDs := map[string]bool{}
	regs, source, size, err := prescan(open, opts.Registrar, contactIDs)
	if err != nil {
		return nil, err
	}
	for _, row := range contactRows {
		switch {
		case row.Err != nil:
		case row.Registrar != "":
			regs[row.Registrar] = true
		case opts.Registrar != "":
			regs[opts.Registrar] = true
		default:
			return nil, fmt.Errorf("contacts file line %d names no registrar and no default registrar (-registrar) is given", row.Line)
		}
	}
	sum.Source = source
	opts.Progress.Total.Store(size)
	if opts.BatchSize <= 0 {
		opts.BatchSize = imp.ImportBatchSize()
		// a store may write a large file in larger batches (more memory,
		// fewer writes of each page: docs/import.md, "Memory")
		if b, ok := imp.(interface{ ImportBatchSizeFor(fileBytes int64) int }); ok {
			opts.BatchSize = b.ImportBatchSizeFor(size)
		}
	}
	ids, err := s.importRegistrars(ctx, imp, regs, opts.CreateRegistrars, sum)
	if err != nil {
		return nil, err
	}
	if err := s.importContactsFile(ctx, contactRows, opts.Registrar, ids, sum, opts.Refused); err != nil {
		return sum, err
	}
	if opts.known, err = s.importKnownContacts(ctx, contactIDs); err != nil {
		return sum, err
	}

	from, finished := int64(0), false
	if !opts.Restart {
		line, done, err := imp.ImportCheckpoint(ctx, source, zone.Name)
		if err != nil {
			return nil, err
		}
		from, finished = line, done
	}

	// An import into a zone whose family holds nothing is built: judged
	// whole, decided, and written in one transaction (importbuild.go).
	// (names with contacts, or conflicts refused, are written in batches)
	if bld, ok := imp.(ImportBuilder); ok && !opts.Batched && !finished && len(contactIDs) == 0 && !refuseConflicts {
		empty, err := bld.ImportBuildable(ctx, zone.Name)
		if err != nil {
			return nil, err
		}
		if empty {
			before := *sum
			built, err := s.importBuild(ctx, bld, open, from, zone, ids, reserved, opts, sum)
			if built || err != nil {
				return sum, err
			}
			// a domain was created in the family meanwhile: in batches,
			// the file read and judged again
			*sum = before
			opts.Progress.Stage.Store(nil)
			opts.Progress.Lines.Store(0)
			opts.Progress.Bytes.Store(0)
		}
	}

	// Pass 2: read in chunks, judge chunks in parallel, write them in order.
	rc, err := open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	order, slots, judged := s.startJudging(ctx, rc, from, finished, zone, ids, reserved, opts, sum)
	codes, legacyCodes := map[string]int64{}, map[string]int64{}
	var werr error
	ahead, _ := imp.(ImportAheader)
	var used0, missed0, gone0 int64
	if la, ok := imp.(interface{ ImportAheadCounts() (int64, int64, int64) }); ok {
		used0, missed0, gone0 = la.ImportAheadCounts()
	}
	type pending struct {
		c *importChunk
		j *judgedChunk
		b *ImportBatch
	}
	// next takes the next chunk in file order, judged
	next := func() *pending {
		for c := range order {
			if werr != nil {
				<-slots // drain
				continue
			}
			select {
			case j := <-c.out:
				b := &ImportBatch{Source: source, Zone: zone.Name, LastLine: c.last, Done: c.done, Items: j.items, RefuseConflicts: refuseConflicts,
					Note: fmt.Sprintf("lines to %d: %d refused", c.last, len(j.refusals))}
				return &pending{c, j, b}
			case <-ctx.Done():
				// interrupted: the chunk may never reach a worker
				werr = ctx.Err()
				<-slots
			}
		}
		return nil
	}
	cur := next()
	for cur != nil {
		// batch N is written while batch N+1 is looked up
		errc := make(chan error, 1)
		go func(b *ImportBatch) { errc <- imp.ImportBatch(ctx, b) }(cur.b)
		nb := next()
		if nb != nil && ahead != nil && opts.AheadHook != nil {
			opts.AheadHook(nb.b, false)
		}
		if nb != nil && ahead != nil {
			ahead.ImportAhead(ctx, nb.b) // an error leaves it to the batch's transaction
			if opts.AheadHook != nil {
				opts.AheadHook(nb.b, true)
			}
		}
		if err := <-errc; err != nil {
			if werr == nil {
				werr = err
			}
			cancel()
		} else {
			c, j := cur.c, cur.j
			sum.Batches++
			sum.addJudged(j, codes, legacyCodes)
			refusals := j.refusals
			for _, it := range j.items {
				if (it.Outcome == ImportRegistered || it.Outcome == ImportExempted) && it.Domain.Expires.IsZero() {
					sum.WithoutExpiry++
				}
				if len(it.Contacts) > 0 && (it.Outcome == ImportRegistered || it.Outcome == ImportExempted) {
					sum.Linked++
				}
				switch it.Outcome {
				case ImportRefusedConflict:
					sum.Refused++
					codes[CodeConflict]++
					if len(it.Domain.Legacy) > 0 { // refused after all: not legacy
						sum.Legacy--
						for _, c := range it.Domain.Legacy {
							if legacyCodes[c]--; legacyCodes[c] == 0 {
								delete(legacyCodes, c)
							}
						}
					}
					refusals = append(refusals, ImportRefusal{Line: it.Line, Name: it.Domain.Name, Code: CodeConflict,
						Reason: it.Domain.Name + " conflicts with " + strings.Join(it.ExemptWith, ", ") + ", another registrar's (-conflicts refuse)"})
				case ImportRegistered:
					sum.Registered++
				case ImportExempted:
					sum.Exempted++
				case ImportDuplicate:
					sum.Duplicates++
					refusals = append(refusals, ImportRefusal{Line: it.Line, Name: it.Domain.Name, Code: CodeDuplicate, Reason: it.Domain.Name + " is registered already"})
				}
			}
			if opts.Refused != nil {
				sort.Slice(refusals, func(a, b int) bool { return refusals[a].Line < refusals[b].Line })
				for _, r := range refusals {
					opts.Refused(r)
				}
			}
			opts.Progress.Lines.Add(int64(c.n))
			opts.Progress.Bytes.Store(c.bytes)
		}
		<-slots
		if werr != nil && nb != nil {
			<-slots
			nb = nil
			for next() != nil { // drain
			}
		}
		cur = nb
	}
	if err := judged(); werr == nil && err != nil {
		werr = err
	}
	if werr == nil {
		werr = ctx.Err()
	}
	sum.RefusedByCode, sum.LegacyByCode = countList(codes), countList(legacyCodes)
	if rc, ok := imp.(interface{ ImportChecks() string }); ok {
		sum.ReferenceChecks = rc.ImportChecks()
	}
	if la, ok := imp.(interface{ ImportAheadCounts() (int64, int64, int64) }); ok && ahead != nil {
		used, missed, gone := la.ImportAheadCounts()
		sum.LookAhead = fmt.Sprintf("used in %d batches, looked up again in %d", used-used0, missed-missed0)
		if gone -= gone0; gone > 0 {
			sum.LookAhead += fmt.Sprintf(", %d looks found a domain deleted", gone)
		}
	}
	if werr != nil {
		return sum, werr
	}
	return sum, nil
}

// startJudging reads the records of r after line from in chunks of
// opts.BatchSize and judges them on opts.Workers goroutines. order gives
// the chunks in the file's order, each judged on its out; the reader
// takes a slot before it reads a chunk, and the consumer gives it back
// (<-slots) when done with the chunk: at most two chunks are in memory
// whatever the size of the file. The consumer reads order to its end;
// wait then returns the reader's error. Judging a chunk takes a fraction
// of the time a store takes to write it (about 5 µs a name against
// 20–80), so one chunk of look-ahead keeps the writer busy.
func (s *Service) startJudging(ctx context.Context, r io.Reader, from int64, finished bool, zone *Zone, ids map[string]int64, reserved map[string]bool, opts ImportOptions, sum *ImportSummary) (order <-chan *importChunk, slots chan struct{}, wait func() error) {
	work := make(chan *importChunk)
	ord := make(chan *importChunk)
	slots = make(chan struct{}, 2)
	var readErr error
	go func() {
		defer close(ord)
		defer close(work)
		readErr = s.readChunks(ctx, r, from, finished, opts.BatchSize, sum, slots, work, ord)
	}()
	var wg sync.WaitGroup
	for i := 0; i < opts.Workers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range work {
				j := s.judgeChunk(c.recs, zone, ids, reserved, opts)
				// the records are not needed once judged (the items
				// hold what is written): let them go before the write
				c.n, c.recs = len(c.recs), nil
				c.out <- j
			}
		}()
	}
	return ord, slots, func() error {
		wg.Wait()
		return readErr // read after order is closed
	}
}

// addJudged counts what the judge did with a chunk's records.
func (sum *ImportSummary) addJudged(j *judgedChunk, codes, legacy map[string]int64) {
	for code, n := range j.codes {
		codes[code] += n
	}
	sum.Legacy += j.nlegacy
	for code, n := range j.legacy {
		legacy[code] += n
	}
	sum.Refused += int64(len(j.refusals))
}

// prescan reads the file once: the registrars it names (with def for
// records that name none), its SHA-256 and size.
func prescan(open func() (io.ReadCloser, error), def string, contactIDs map[string]bool) (map[string]bool, string, int64, error) {
	rc, err := open()
	if err != nil {
		return nil, "", 0, err
	}
	defer rc.Close()
	h := sha256.New()
	ir := NewImportReader(io.TeeReader(rc, h))
	regs := map[string]bool{}
	var missing int64
	for {
		rec, err := ir.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, "", 0, err
		}
		if rec.Err != nil {
			continue
		}
		for _, c := range rec.Contacts {
			contactIDs[c.ID] = true
		}
		switch {
		case rec.Registrar != "":
			regs[rec.Registrar] = true
		case def != "":
			regs[def] = true
		default:
			if missing == 0 {
				missing = rec.Line
			}
		}
	}
	if missing > 0 {
		return nil, "", 0, fmt.Errorf("line %d names no registrar and no default registrar (-registrar) is given", missing)
	}
	return regs, hex.EncodeToString(h.Sum(nil)), ir.Offset(), nil
}

// importRegistrars finds (or creates) the registrars of the file.
func (s *Service) importRegistrars(ctx context.Context, imp Importer, regs map[string]bool, create bool, sum *ImportSummary) (map[string]int64, error) {
	names := make([]string, 0, len(regs))
	for n := range regs {
		names = append(names, n)
	}
	sort.Strings(names)
	ids, err := imp.RegistrarIDs(ctx, names)
	if err != nil {
		return nil, err
	}
	var missing []string
	for _, n := range names {
		if _, ok := ids[n]; !ok {
			missing = append(missing, n)
		}
	}
	if len(missing) == 0 {
		return ids, nil
	}
	if !create {
		shown := missing
		if len(shown) > 10 {
			shown = shown[:10]
		}
		return nil, fmt.Errorf("%w: %d missing (%s%s); create them first (akshara registrar add) or give -create-registrars",
			ErrImportRegistrars, len(missing), strings.Join(shown, ", "), map[bool]string{true: ", ...", false: ""}[len(missing) > len(shown)])
	}
	sum.RegistrarsCreated = map[string]string{}
	for _, n := range missing {
		r, token, err := s.AddRegistrar(ctx, n)
		if err != nil {
			return nil, fmt.Errorf("creating registrar %q: %w", n, err)
		}
		ids[n] = r.ID
		sum.RegistrarsCreated[n] = token
	}
	return ids, nil
}

// readChunks reads the records after line from, in chunks of size.
// An import that finished before writes nothing when run again (no empty
// batch, no audit entry).
func (s *Service) readChunks(ctx context.Context, r io.Reader, from int64, finished bool, size int, sum *ImportSummary, slots chan<- struct{}, work, order chan<- *importChunk) error {
	ir := NewImportReader(r)
	c := &importChunk{out: make(chan *judgedChunk, 1)}
	held := false // a slot is held for c
	take := func() bool {
		if held {
			return true
		}
		select {
		case slots <- struct{}{}:
			held = true
			return true
		case <-ctx.Done():
			return false
		}
	}
	send := func() bool {
		if !take() {
			return false
		}
		held = false
		c.bytes = ir.Offset()
		select {
		case work <- c:
		case <-ctx.Done():
			return false
		}
		select {
		case order <- c:
		case <-ctx.Done():
			return false
		}
		c = &importChunk{out: make(chan *judgedChunk, 1)}
		return true
	}
	for {
		rec, err := ir.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		sum.Records++
		if rec.Line <= from {
			sum.Skipped++
			continue
		}
		if !take() {
			return ctx.Err()
		}
		c.recs = append(c.recs, rec)
		c.last = rec.Line
		if len(c.recs) >= size && !send() {
			return ctx.Err()
		}
	}
	c.done = true
	// the last line read: the file may end right after a full chunk
	c.last = max(ir.line, from)
	if len(c.recs) == 0 && finished {
		return nil
	}
	if !send() {
		return ctx.Err()
	}
	return nil
}

// judgeChunk judges the records of a chunk. A name whose conflict set
// meets a label of reserved is refused with RESERVED.
func (s *Service) judgeChunk(recs []*ImportRecord, zone *Zone, ids map[string]int64, reserved map[string]bool, opts ImportOptions) *judgedChunk {
	j := &judgedChunk{codes: map[string]int64{}, legacy: map[string]int64{}}
	refuse := func(rec *ImportRecord, name string, e *Error) {
		j.refusals = append(j.refusals, ImportRefusal{Line: rec.Line, Name: name, Code: e.Code, Reason: e.Message})
		j.codes[e.Code]++
	}
	// unlegacy: a legacy name refused after all is not legacy
	unlegacy := func(d *ImportDomain) {
		if len(d.Legacy) > 0 {
			j.nlegacy--
			for _, c := range d.Legacy {
				if j.legacy[c]--; j.legacy[c] == 0 {
					delete(j.legacy, c)
				}
			}
		}
	}
	now := s.clock.Now() // the Created of records without one
	for _, rec := range recs {
		if rec.Err != nil {
			refuse(rec, rec.Name, rec.Err)
			continue
		}
		created := rec.Created
		if created.IsZero() {
			created = now
		}
		if !rec.Expires.IsZero() && !rec.Expires.After(created) {
			refuse(rec, rec.Name, &Error{Code: CodeBadExpiry, Message: fmt.Sprintf("line %d: expires %s is not after created %s",
				rec.Line, rec.Expires.Format(time.RFC3339), created.Format(time.RFC3339))})
			continue
		}
		input := rec.Name
		if !strings.Contains(strings.TrimSuffix(input, "."), ".") {
			input = strings.TrimSuffix(input, ".") + "." + zone.Name
		}
		n, err := s.parseName(input)
		if err == nil && n.zone != zone {
			err = Errorf(CodeOtherZone, "%s is not a name of zone %s", rec.Name, zone.Name)
		}
		var c canonical
		if err == nil {
			c, err = s.judge(&n, rec.Lang)
		}
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				e = &Error{Code: CodeInternal, Message: err.Error()}
			}
			refuse(rec, rec.Name, e)
			continue
		}
		reg := rec.Registrar
		if reg == "" {
			reg = opts.Registrar
		}
		d := ImportDomain{Label: c.label, ALabel: c.alabel, Lang: c.lang, Created: created, Expires: rec.Expires, Blocks: c.blocks, DataVersion: s.version}
		if len(c.errs) > 0 {
			counts := j.codes
			if opts.AllowInvalid {
				counts = j.legacy
			}
			for _, e := range c.errs {
				counts[e.Code.String()]++
			}
			if !opts.AllowInvalid {
				first := c.errs[0]
				j.refusals = append(j.refusals, ImportRefusal{Line: rec.Line, Name: rec.Name, Code: first.Code.String(), Reason: first.Error()})
				continue
			}
			// legacy: kept with its rule codes; it holds its own label
			j.nlegacy++
			if d.Label == "" {
				d.Label = norm.NFC.String(strings.ToLower(n.label))
			}
			d.ALabel = d.Label
			if a, err := idna.Punycode.ToASCII(d.Label); err == nil {
				d.ALabel = a
			}
			d.Blocks = s.legacySet(zone, d.Label, d.Lang)
			for _, e := range c.errs {
				d.Legacy = append(d.Legacy, e.Code.String())
			}
		}
		d.Name, d.ALabel = d.Label+"."+zone.Name, d.ALabel+"."+zone.ALabel
		if r := reservedIn(reserved, d.Blocks); r != "" {
			unlegacy(&d)
			msg := d.Name + " is reserved by the registry"
			if r != d.Label {
				msg = d.Name + " is a variant of " + r + "." + zone.Name + ", which is reserved by the registry"
			}
			refuse(rec, rec.Name, &Error{Code: CodeReserved, Message: msg})
			continue
		}
		var contacts []ImportContact
		if len(rec.Contacts) > 0 || opts.binds {
			var e *Error
			if contacts, e = judgeImportContacts(rec.Contacts, reg, zone, opts.binds, opts.known); e != nil {
				unlegacy(&d)
				refuse(rec, rec.Name, e)
				continue
			}
		}
		j.items = append(j.items, &ImportItem{Line: rec.Line, Domain: d, RegistrarID: ids[reg], Contacts: contacts})
	}
	return j
}

// reservedIn returns the first (in byte order, as Store.FindReserved)
// of labels that is in reserved, or "".
func reservedIn(reserved map[string]bool, labels []string) string {
	first := ""
	for _, l := range labels {
		if reserved[l] && (first == "" || l < first) {
			first = l
		}
	}
	return first
}

// countList sorts counts by code, most frequent first.
func countList(m map[string]int64) []CodeCount {
	out := []CodeCount{}
	for code, n := range m {
		out = append(out, CodeCount{code, n})
	}
	sort.Slice(out, func(a, b int) bool {
		x, y := out[a], out[b]
		return x.Count > y.Count || x.Count == y.Count && x.Code < y.Code
	})
	return out
}
