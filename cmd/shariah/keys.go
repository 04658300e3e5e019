package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/shariah-screen/shariah/account"
	sredis "github.com/shariah-screen/shariah/redis"
)

// runKeys is the operators' key management: enterprise and internal keys are issued here.
func runKeys(args []string) error {
	if len(args) == 0 {
		return usageError{"keys: create --email E --plan P | set-plan PREFIX PLAN | revoke PREFIX"}
	}
	e, err := load()
	if err != nil {
		return err
	}
	rc, err := redisFor(e)
	if err != nil {
		return err
	}
	defer rc.Close()
	keys := &account.Keys{Store: sredis.NewKeyStore(rc), Plans: e.Plans, Prefix: e.Config.Plan.KeyPrefix}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	switch args[0] {
	case "create":
		fs := flag.NewFlagSet("keys create", flag.ContinueOnError)
		email := fs.String("email", "", "owner's email")
		plan := fs.String("plan", account.PlanFree, "plan: free, starter, pro, enterprise or internal")
		if err := fs.Parse(args[1:]); err != nil {
			return usageError{err.Error()}
		}
		k, err := keys.Create(ctx, *email, *plan)
		if err != nil {
			return err
		}
		// The full key goes to standard output only, once; nothing logs it.
		fmt.Printf("%s\n", k.Key)
		fmt.Fprintf(os.Stderr, "created key %s (plan %s, user %s); the key above is shown once\n", k.Record.Prefix, k.Record.Plan, k.Record.UserID)
		return nil
	case "set-plan":
		if len(args) != 3 {
			return usageError{"keys set-plan PREFIX PLAN"}
		}
		k, err := keys.SetPlan(ctx, args[1], args[2])
		if err != nil {
			return err
		}
		fmt.Printf("%s now on plan %s\n", k.Prefix, k.Plan)
		return nil
	case "revoke":
		if len(args) != 2 {
			return usageError{"keys revoke PREFIX"}
		}
		k, err := keys.Store.KeyByPrefix(ctx, args[1])
		if err != nil {
			return err
		}
		if err := keys.Store.Deactivate(ctx, k.Hash, time.Now().UTC(), ""); err != nil {
			return err
		}
		fmt.Printf("%s revoked\n", k.Prefix)
		return nil
	default:
		return usageError{fmt.Sprintf("keys: unknown action %q", args[0])}
	}
}
