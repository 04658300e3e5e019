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
