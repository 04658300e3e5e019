package filings

// Event is an 8-K filing read as an event: its items with descriptions and how much it matters to
// a screening.
type Event struct {
	Accession string      `json:"accession_number"`
	Date      string      `json:"date"`
	Form      string      `json:"form"`
	Items     []EventItem `json:"items"`
	Relevance string      `json:"compliance_relevance"` // high, medium, low
	Reason    string      `json:"reason"`
	Material  bool        `json:"material"` // high relevance: may change a screening's inputs
	URL       string      `json:"url"`
}

// EventItem is one 8-K item.
type EventItem struct {
	Code        string `json:"code"`
	Description string `json:"description"`
}

// ItemDescriptions name the 8-K items (SEC Form 8-K instructions).
var ItemDescriptions = map[string]string{
	"1.01": "Entry into a material definitive agreement", "1.02": "Termination of a material definitive agreement",
	"1.03": "Bankruptcy or receivership", "1.04": "Mine safety", "1.05": "Material cybersecurity incidents",
	"2.01": "Completion of acquisition or disposition of assets", "2.02": "Results of operations and financial condition",
	"2.03": "Creation of a direct financial obligation", "2.04": "Triggering events that accelerate a financial obligation",
	"2.05": "Costs of exit or disposal activities", "2.06": "Material impairments",
	"3.01": "Notice of delisting or failure to satisfy a listing rule", "3.02": "Unregistered sales of equity securities",
	"3.03": "Material modification to rights of security holders", "4.01": "Changes in the registrant's certifying accountant",
	"4.02": "Non-reliance on previously issued financial statements", "5.01": "Changes in control of the registrant",
	"5.02": "Departure or appointment of directors or officers", "5.03": "Amendments to articles or bylaws; change in fiscal year",
	"5.07": "Submission of matters to a vote of security holders", "7.01": "Regulation FD disclosure",
	"8.01": "Other events", "9.01": "Financial statements and exhibits",
}

// EventsOf reads 8-K filings as events with their items and relevance.
func EventsOf(filings []Filing, relevance func([]string) (string, string)) []Event {
	var out []Event
	for _, f := range filings {
		if f.Form != "8-K" && f.Form != "8-K/A" {
			continue
		}
		ev := Event{Accession: f.Accession, Date: f.FilingDate, Form: f.Form, URL: f.URL, Items: []EventItem{},
			Relevance: "low", Reason: "no item of consequence"}
		for _, it := range f.Items {
			ev.Items = append(ev.Items, EventItem{Code: it, Description: ItemDescriptions[it]})
		}
		if relevance != nil {
			ev.Relevance, ev.Reason = relevance(f.Items)
		}
		ev.Material = ev.Relevance == "high"
		out = append(out, ev)
	}
	return out
}
