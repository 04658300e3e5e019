package shariah

// ServiceOwner owns the scheduled rescreens: every key may read them, only operators manage them.
const ServiceOwner = "service"

// Caller is who acts on runs: the account (the user id shared by its API keys, or the local MCP user)
// and whether it is an operator (a key of the internal plan), who may read and manage every run.
type Caller struct {
	UserID   string
	Operator bool
}

// ServiceCaller starts the scheduled rescreens.
var ServiceCaller = Caller{UserID: ServiceOwner, Operator: true}

// CallerOf is the caller an API key identifies.
func CallerOf(k APIKey) Caller { return Caller{UserID: k.UserID, Operator: k.Plan == PlanInternal} }

// CanRead reports whether the caller may see the run: its own runs, the scheduled ones, and for
// operators every run. A run stored before runs had owners (Owner "") and not scheduled is the
// operators' only: its owner is unknown.
func (c Caller) CanRead(r Run) bool {
	return c.Operator || r.Owner == ServiceOwner || (r.Owner != "" && r.Owner == c.UserID)
}

// CanManage reports whether the caller may cancel or delete the run: its own runs; operators every run.
func (c Caller) CanManage(r Run) bool {
	return c.Operator || (r.Owner != "" && r.Owner != ServiceOwner && r.Owner == c.UserID)
}
