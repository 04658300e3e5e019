package account

// MayForceRefresh reports whether the plan's keys may force fresh screenings in a portfolio scan:
// enterprise and internal only; for the others force_refresh is silently ignored.
func (p Plan) MayForceRefresh() bool { return p.ID == PlanEnterprise || p.ID == PlanInternal }
