package plan

// ResultFile is one result file of a results directory and the label its
// runs are compared under.
type ResultFile struct {
	// Name is the file's name inside the directory.
	Name string
	// Label is the target's label, or "target/entry" when two workload
	// entries of the plan run the same workload (compare and the HTML
	// report group runs by workload name, so the entry must be in the
	// label to keep them apart).
	Label string
	// Entry is the workload entry's label.
	Entry string
}

// ResultFiles lists the result files of dir's completed runs (status done
// in plan.json) in the order of the plan's cells, every repetition of a
// cell in turn, each with its label. isPlan is false, with no error, when
// dir holds no plan.json.
func ResultFiles(dir string) (files []ResultFile, isPlan bool, err error) {
	st, err := readState(dir)
	if err != nil || st == nil {
		return nil, false, err
	}
	return resultFiles(st), true, nil
}

func resultFiles(st *State) []ResultFile {
	done := map[string]bool{}
	for _, r := range st.Runs {
		if r.Status == RunDone {
			done[r.File] = true
		}
	}
	// Entries per workload name: more than one puts the entry in the label.
	entries := map[string]map[string]bool{}
	for _, c := range st.Cells {
		if entries[c.WorkloadName] == nil {
			entries[c.WorkloadName] = map[string]bool{}
		}
		entries[c.WorkloadName][c.Workload] = true
	}
	var out []ResultFile
	for _, c := range st.Cells {
		label := resultLabel(c.Target, c.Workload, len(entries[c.WorkloadName]) > 1)
		for _, r := range st.Runs {
			if r.Cell == c.ID && done[r.File] {
				out = append(out, ResultFile{Name: r.File, Label: label, Entry: c.Workload})
			}
		}
	}
	return out
}

// resultLabel is the label a result file is compared under across a
// plan's entries: the target's, and "target/entry" when several entries
// run the same workload (shared), which compare and the HTML report would
// otherwise put in one column.
func resultLabel(target, entry string, shared bool) string {
	if shared {
		return target + "/" + entry
	}
	return target
}
