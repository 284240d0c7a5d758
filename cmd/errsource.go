package adsynccmd

// withSources adds to a credential error where the credentials it is about
// came from (see config.Config.NameSources), unless the fake started in
// this process set them.
func (a *app) withSources(err error) error {
	if err == nil || a.demo.FakeStarted() {
		return err
	}
	return a.cfg.NameSources(err)
}
