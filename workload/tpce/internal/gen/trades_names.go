package gen

// People's names for the initial trades: the executor of a trade
// (t_exec_name, a person account_permission allows) and the brokers
// (b_name), "First Last".

// Executor is the first and last name of a person who trades account
// caID: with owner, the account's customer (c_f_name, c_l_name);
// otherwise the first person the account permits besides its owner
// (account_permission's ap_f_name, ap_l_name), or the owner when it
// permits nobody else.
func (m *Model) Executor(caID int64, owner bool) (first, last string) {
	var r Rand
	if !owner {
		r.Reset(m.cfg.Seed, tagRowPermission, uint64(caID))
		if extraPermissions(&r) > 0 {
			p := drawPerson(&r)
			return p.first, p.last
		}
	}
	p := m.customerPerson(&r, AccountOwner(caID))
	return p.first, p.last
}

// PermissionTaxID is ap_tax_id of the person Executor(caID, false)
// names when account caID permits another person than its owner (the
// first of its extra account_permission rows).
func (m *Model) PermissionTaxID(caID int64) string {
	return string(m.appendPermissionTaxID(nil, caID, 0))
}

// ExecName is the t_exec_name of a trade of account caID, "First Last"
// of Executor(caID, owner): on an account that permits another person,
// the owner executes 75% of its trades and that person 25% (the owner 90%
// of all trades).
func (m *Model) ExecName(caID int64, owner bool) string {
	first, last := m.Executor(caID, owner)
	return first + " " + last
}

// BrokerName is b_name of broker bID, "First Last".
func (m *Model) BrokerName(bID int64) string {
	var r Rand
	r.Reset(m.cfg.Seed, tagBrokerName, uint64(bID))
	p := drawPerson(&r)
	return p.first + " " + p.last
}
