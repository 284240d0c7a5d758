package api_test

import (
	"context"
	"fmt"
	"log"
	"net/http/httptest"
	"net/url"
	"time"

	"github.com/adsync/adsync/fixtures"
	"github.com/adsync/adsync/sync/api"
)

// ExampleClient_Do builds a client of the advertising service (here the
// fake from package fixtures, its data generated from a fixed seed and
// hour) and lists the first page of the ad accounts its user reaches.
func ExampleClient_Do() {
	opts := fixtures.DefaultOptions()
	opts.Anchor = time.Date(2026, time.January, 5, 12, 0, 0, 0, time.UTC)
	fake := httptest.NewServer(fixtures.New(opts))
	defer fake.Close()
	apiURL, adsURL, _ := fixtures.URLs(fake.URL)

	client, err := api.NewClient(api.Config{
		APIURL: apiURL,
		AdsURL: adsURL,
		Credentials: api.Credentials{
			ConsumerKey:    opts.ConsumerKey,
			ConsumerSecret: opts.ConsumerSecret,
		},
		UserToken: &api.Token{Token: opts.OwnerToken, Secret: opts.OwnerSecret},
	})
	if err != nil {
		log.Fatal(err)
	}
	resp, err := client.Do(context.Background(), &api.Request{
		Method: "GET",
		Base:   api.BaseAds,
		Path:   "/12/accounts",
		Query:  url.Values{"count": {"2"}},
		Auth:   api.AuthUser,
	})
	if err != nil {
		log.Fatal(err)
	}
	type account struct {
		ID       string `json:"id"`
		Name     string `json:"name"`
		Timezone string `json:"timezone"`
	}
	page, err := api.Decode[api.List[account]]("GET /12/accounts", resp.Body)
	if err != nil {
		log.Fatal(err)
	}
	for _, a := range page.Data {
		fmt.Printf("%s %q %s\n", a.ID, a.Name, a.Timezone)
	}
	fmt.Println("more pages:", page.NextCursor != nil)
	// Output:
	// 18b47glfyb2 "Evergreen Account 1" America/New_York
	// 18b47glfyzp "Holiday Account 2" Europe/Berlin
	// more pages: true
}
