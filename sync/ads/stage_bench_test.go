package ads

import (
	"encoding/json"
	"fmt"
	"testing"
)

// benchCampaignPage is a listed page of 1,000 campaigns shaped as the
// service (and the fake) sends them: every field present, in the order
// the fake writes them, a seventh deleted, a third not servable.
func benchCampaignPage() []json.RawMessage {
	raws := make([]json.RawMessage, 1000)
	for i := range raws {
		reasons := `[]`
		if i%3 == 0 {
			reasons = `["PAUSED_BY_ADVERTISER"]`
		}
		po := `null`
		if i%2 == 0 {
			po = fmt.Sprintf(`"PO-%06d"`, 440000+i)
		}
		raws[i] = json.RawMessage(fmt.Sprintf(`{"account_id":"18b47glfyb2","budget_optimization":"CAMPAIGN","created_at":"2026-02-%02dT09:44:49Z",`+
			`"currency":"USD","daily_budget_amount_local_micro":%d,"deleted":%t,"duration_in_days":null,"effective_status":"RUNNING",`+
			`"entity_status":"ACTIVE","frequency_cap":null,"funding_instrument_id":"8xick","id":"c%05d","name":"Flash Awareness Campaign %d",`+
			`"purchase_order_number":%s,"reasons_not_servable":%s,"servable":%t,"standard_delivery":true,`+
			`"total_budget_amount_local_micro":%d,"updated_at":"2026-03-10T11:%02d:13Z"}`,
			1+i%28, 524588235+i*1000, i%7 == 0, i, i, po, reasons, i%3 != 0, 8918000000+i, i%60))
	}
	return raws
}

// BenchmarkStagePage is the client's own work on a new page of a fresh
// load, before its COPY: each record canonicalized and hashed, and its
// typed columns computed. BenchmarkSync in jobs measures the whole sync.
func BenchmarkStagePage(b *testing.B) {
	e, _ := Lookup("campaigns")
	u := &Unit{AccountID: "18b47glfyb2", Entity: e}
	raws := benchCampaignPage()
	var c canonicalizer
	for b.Loop() {
		p, err := c.stagePage(u, "", raws)
		if err != nil {
			b.Fatal(err)
		}
		typed := newTypedArena(e, len(p.recs))
		for i := range p.recs {
			var ok bool
			if p.recs[i].Typed, ok = typedValuesInto(e, "", p.recs[i].Raw, p.tops[i], typed); !ok {
				b.Fatal("not typed in Go")
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(raws)), "ns/record")
}
