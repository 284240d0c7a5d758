package ads

import (
	"context"
	"errors"
	"fmt"

	"github.com/adsync/adsync/sync/access"
	"github.com/adsync/adsync/sync/api"
)

// syncAsUser runs a unit for the deployment's users (see Syncer.Users):
// the accounts list once per user, an account's entities as the user
// chosen for the account, global entities with the Syncer's client.
func (s *Syncer) syncAsUser(ctx context.Context, u *Unit, resume Cursor, cp Checkpoint) error {
	switch {
	case u.Entity.AccessList:
		return s.syncAccessLists(ctx, u)
	case u.User != nil:
		return s.sync(ctx, u, resume, cp)
	case u.AccountID == "":
		// Global lists read the same for every user: the first usable one
		// reads them.
		users, err := s.Users.Users(ctx)
		if err != nil {
			return err
		}
		if len(users) > 0 {
			u.User = users[0]
		}
		return s.sync(ctx, u, resume, cp)
	}
	var usr *access.User
	var err error
	if u.reach != nil {
		usr, err = s.Users.ForReachers(ctx, u.AccountID, access.NeedRead, *u.reach)
	} else {
		usr, err = s.Users.For(ctx, u.AccountID, access.NeedRead)
	}
	if err != nil {
		return err
	}
	u.User = usr
	err = s.sync(ctx, u, resume, cp)
	if f := api.UserFailure(err); f != "" {
		// The pages stored so far stay, with the cursor after them: the
		// next attempt resumes there as the account's next user.
		return s.Users.Failed(ctx, usr, u.AccountID, f, err)
	}
	return err
}

// actsAsAccountUser says whether syncAsUser chooses the user who acts on
// u's account (see access.Set.For).
func (s *Syncer) actsAsAccountUser(u *Unit) bool {
	return s.Users != nil && !u.Entity.AccessList && u.User == nil && u.AccountID != ""
}

// syncAccessLists reads the accounts list of every user into one unit: an
// account is reachable when some user's list returns it, and each user's
// listing records which accounts that user reaches. A user whose token the
// service no longer accepts is recorded so and left out; the others' lists
// still count. Roles are read (at most daily) when there are several users
// to choose from.
func (s *Syncer) syncAccessLists(ctx context.Context, u *Unit) error {
	users, err := s.Users.Users(ctx)
	if err != nil {
		return err
	}
	if len(users) == 0 {
		return errors.New("accounts: no usable user token: set ADSYNC_ACCESS_TOKEN and ADSYNC_ACCESS_SECRET, or add tokens with adsync auth add (adsync auth list shows their states)")
	}
	listed := 0
	for _, usr := range users {
		uu := *u
		uu.User = usr
		err := s.syncPart(ctx, &uu, usr.ID, "", nil)
		if err == nil && len(users) > 1 {
			err = s.Users.CheckRoles(ctx, usr, ReferenceMaxAge)
		}
		if f := api.UserFailure(err); f != "" {
			err = s.Users.Failed(ctx, usr, "", f, err)
		}
		if errors.As(err, new(*api.SwitchUserError)) {
			continue // recorded: the other users' lists decide
		}
		if err != nil {
			return fmt.Errorf("accounts of user %s: %w", usr.ID, err)
		}
		if err := access.EndListing(ctx, s.Pool, u.RunID, usr.ID); err != nil {
			return fmt.Errorf("recording the accounts user %s reaches: %w", usr.ID, err)
		}
		listed++
	}
	if listed == 0 {
		return errors.New("accounts: the service accepted none of the user tokens (adsync auth list shows their states)")
	}
	return nil
}
