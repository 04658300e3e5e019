package account

import (
	"testing"
)

func TestMayForceRefresh(t *testing.T) {
	t.Parallel()
	for _, p := range DefaultPlans() {
		if want := p.ID == PlanEnterprise || p.ID == PlanInternal; p.MayForceRefresh() != want {
			t.Errorf("%s: MayForceRefresh %v", p.ID, !want)
		}
	}
}
