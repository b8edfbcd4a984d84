package airline

import "sync"

// userBits: a user id is run epoch (high bits) | worker (20 bits) |
// booking number (28 bits), so ids never repeat across runs or workers.
const (
	bookingBits = 28
	workerBits  = 20
	epochShift  = bookingBits + workerBits
)

// Users are the user ids of one run, which every family's Open makes
// afresh and its workers share: the run's epoch, the one after the
// highest user id booked before the run, and each worker's last user id,
// by worker ID, so that a worker rebuilt after a lost connection goes on
// where it was. It is safe for concurrent use; the zero value is ready.
type Users struct {
	mu     sync.Mutex
	based  bool
	base   int64 // the run's first user id
	byUser map[int]*int64
}

// Seq is worker id's last user id, kept across the worker's reconnections
// in the run; only that worker's goroutine uses it. The run's first call
// asks highest for the highest user id booked so far (on the worker's
// connection) and starts the run's ids in the epoch after it; when
// highest fails, Seq returns its error and the next call asks again.
func (u *Users) Seq(id int, highest func() (int64, error)) (*int64, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if !u.based {
		maxUser, err := highest()
		if err != nil {
			return nil, err
		}
		u.base = (maxUser>>epochShift + 1) << epochShift
		u.based = true
	}
	if u.byUser == nil {
		u.byUser = map[int]*int64{}
	}
	p, ok := u.byUser[id]
	if !ok {
		p = new(int64)
		*p = u.base | int64(id)<<bookingBits
		u.byUser[id] = p
	}
	return p, nil
}
