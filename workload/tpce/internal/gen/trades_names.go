package gen

// People's names for the initial trades: the executor of a trade
// (t_exec_name) and the brokers (b_name), "First Last", each a pure
// function of (seed, purpose, key).

var tradeFirstNames = [...]string{
	"James", "Mary", "Robert", "Patricia", "John", "Jennifer", "Michael", "Linda", "David", "Elizabeth",
	"William", "Barbara", "Richard", "Susan", "Joseph", "Jessica", "Thomas", "Sarah", "Charles", "Karen",
	"Daniel", "Lisa", "Matthew", "Nancy", "Anthony", "Betty", "Mark", "Sandra", "Donald", "Ashley",
	"Steven", "Kimberly", "Paul", "Emily", "Andrew", "Donna", "Joshua", "Michelle", "Kenneth", "Carol",
	"Kevin", "Amanda", "Brian", "Melissa", "George", "Deborah", "Timothy", "Stephanie", "Ronald", "Rebecca",
	"Jason", "Laura", "Edward", "Helen", "Jeffrey", "Sharon", "Ryan", "Cynthia", "Jacob", "Kathleen",
	"Gary", "Amy", "Nicholas", "Angela", "Eric", "Shirley", "Jonathan", "Anna", "Stephen", "Ruth",
}

var tradeLastNames = [...]string{
	"Smith", "Johnson", "Williams", "Brown", "Jones", "Garcia", "Miller", "Davis", "Rodriguez", "Martinez",
	"Hernandez", "Lopez", "Gonzalez", "Wilson", "Anderson", "Thomas", "Taylor", "Moore", "Jackson", "Martin",
	"Lee", "Perez", "Thompson", "White", "Harris", "Sanchez", "Clark", "Ramirez", "Lewis", "Robinson",
	"Walker", "Young", "Allen", "King", "Wright", "Scott", "Torres", "Nguyen", "Hill", "Flores",
	"Green", "Adams", "Nelson", "Baker", "Hall", "Rivera", "Campbell", "Mitchell", "Carter", "Roberts",
	"Gomez", "Phillips", "Evans", "Turner", "Diaz", "Parker", "Cruz", "Edwards", "Collins", "Reyes",
	"Stewart", "Morris", "Morales", "Murphy", "Cook", "Rogers", "Gutierrez", "Ortiz", "Morgan", "Cooper",
}

// tradePerson is a first and last name drawn from r.
func tradePerson(r *Rand) (first, last string) {
	return tradeFirstNames[r.Intn(len(tradeFirstNames))], tradeLastNames[r.Intn(len(tradeLastNames))]
}

// Executor is the first and last name of a person who trades customer
// cid's accounts: with owner, the customer; otherwise the other person
// allowed to trade them. Both are pure functions of (seed, cid).
func (m *Model) Executor(cid int64, owner bool) (first, last string) {
	var r Rand
	k := uint64(cid) << 1
	if !owner {
		k |= 1
	}
	r.Reset(m.cfg.Seed, tagExecName, k)
	return tradePerson(&r)
}

// ExecName is the t_exec_name of a trade of customer cid's accounts,
// "First Last" of Executor(cid, owner): the owner executes 90% of the
// trades, the other person 10%.
func (m *Model) ExecName(cid int64, owner bool) string {
	first, last := m.Executor(cid, owner)
	return first + " " + last
}

// BrokerName is b_name of broker bID, "First Last".
func (m *Model) BrokerName(bID int64) string {
	var r Rand
	r.Reset(m.cfg.Seed, tagBrokerName, uint64(bID))
	first, last := tradePerson(&r)
	return first + " " + last
}
