// Package stripe talks to the payment processor (Stripe's HTTP API, at a configurable base URL):
// hosted checkout and billing-portal sessions, and the verification and decoding of its webhooks.
package stripe

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/account"
)

// Client calls the Stripe API.
type Client struct {
	BaseURL   string            // https://api.stripe.com
	SecretKey string            // sk_...; sent as a bearer token, never logged
	Prices    map[string]string // plan -> price id
	HTTP      *http.Client      // nil: 15 s timeout
}

// Session is a hosted page the client is sent to.
type Session struct {
	ID  string `json:"id"`
	URL string `json:"url"`
}

func (c *Client) post(ctx context.Context, path string, form url.Values) (Session, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(c.BaseURL, "/")+path, strings.NewReader(form.Encode()))
	if err != nil {
		return Session{}, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Authorization", "Bearer "+c.SecretKey)
	hc := c.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: 15 * time.Second}
	}
	resp, err := hc.Do(req)
	if err != nil {
		return Session{}, fmt.Errorf("payment processor unreachable: %w", errors.Unwrap(err))
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode/100 != 2 {
		var e struct {
			Error struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		_ = json.Unmarshal(body, &e)
		return Session{}, fmt.Errorf("payment processor answered HTTP %d: %s", resp.StatusCode, e.Error.Message)
	}
	var s Session
	if err := json.Unmarshal(body, &s); err != nil || s.URL == "" {
		return Session{}, fmt.Errorf("payment processor answered no session URL")
	}
	return s, nil
}

// Checkout opens a hosted checkout for a subscription to the plan. The session carries the key's public
// prefix as client_reference_id and the plan in its metadata (and the subscription's), which is how the
// webhook finds the key and the plan again.
func (c *Client) Checkout(ctx context.Context, keyPrefix, email, plan, successURL, cancelURL string) (Session, error) {
	price := c.Prices[plan]
	if price == "" {
		return Session{}, shariah.Errorf(shariah.EUNAVAILABLE, "No price is configured for the %s plan.", plan)
	}
	form := url.Values{
		"mode":                                    {"subscription"},
		"line_items[0][price]":                    {price},
		"line_items[0][quantity]":                 {"1"},
		"client_reference_id":                     {keyPrefix},
		"metadata[plan]":                          {plan},
		"metadata[key_prefix]":                    {keyPrefix},
		"subscription_data[metadata][plan]":       {plan},
		"subscription_data[metadata][key_prefix]": {keyPrefix},
		"success_url":                             {successURL},
		"cancel_url":                              {cancelURL},
	}
	if email != "" {
		form.Set("customer_email", email)
	}
	return c.post(ctx, "/v1/checkout/sessions", form)
}

// Portal opens the billing portal of a customer.
func (c *Client) Portal(ctx context.Context, customer, returnURL string) (Session, error) {
	return c.post(ctx, "/v1/billing_portal/sessions", url.Values{"customer": {customer}, "return_url": {returnURL}})
}

// ParseEvent decodes a Stripe event into a billing event; ok is false for event types that do not
// change a plan (they are acknowledged and ignored).
func ParseEvent(payload []byte) (account.BillingEvent, bool, error) {
	var ev struct {
		ID      string `json:"id"`
		Type    string `json:"type"`
		Created int64  `json:"created"`
		Data    struct {
			Object struct {
				ID                string            `json:"id"`
				ClientReferenceID string            `json:"client_reference_id"`
				Customer          json.RawMessage   `json:"customer"`
				Subscription      json.RawMessage   `json:"subscription"`
				Status            string            `json:"status"`
				Metadata          map[string]string `json:"metadata"`
				CurrentPeriodEnd  int64             `json:"current_period_end"`
				Items             struct {
					Data []struct {
						CurrentPeriodEnd int64 `json:"current_period_end"`
					} `json:"data"`
				} `json:"items"`
			} `json:"object"`
		} `json:"data"`
	}
	if err := json.Unmarshal(payload, &ev); err != nil {
		return account.BillingEvent{}, false, fmt.Errorf("not a Stripe event: %w", err)
	}
	if ev.ID == "" || ev.Type == "" {
		return account.BillingEvent{}, false, errors.New("not a Stripe event: no id or type")
	}
	o := ev.Data.Object
	out := account.BillingEvent{ID: ev.ID, Created: time.Unix(ev.Created, 0).UTC(), Plan: o.Metadata["plan"],
		Customer: idOf(o.Customer), Status: o.Status}
	switch ev.Type {
	case "checkout.session.completed":
		out.Type, out.KeyPrefix, out.Subscription = account.EventCheckoutCompleted, o.ClientReferenceID, idOf(o.Subscription)
		if out.KeyPrefix == "" {
			out.KeyPrefix = o.Metadata["key_prefix"]
		}
		out.Status = ""
	case "customer.subscription.updated", "customer.subscription.created", "customer.subscription.deleted":
		out.Type, out.Subscription = account.EventSubscriptionUpdated, o.ID
		if ev.Type == "customer.subscription.deleted" {
			out.Type = account.EventSubscriptionDeleted
		}
		end := o.CurrentPeriodEnd
		if end == 0 && len(o.Items.Data) > 0 { // newer API versions keep the period on the items
			end = o.Items.Data[0].CurrentPeriodEnd
		}
		if end > 0 {
			out.PeriodEnd = time.Unix(end, 0).UTC()
		}
	default:
		return out, false, nil
	}
	return out, true, nil
}

// idOf reads an expandable field: an id string or an object with an id.
func idOf(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var o struct {
		ID string `json:"id"`
	}
	_ = json.Unmarshal(raw, &o)
	return o.ID
}
