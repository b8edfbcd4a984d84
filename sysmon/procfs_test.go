package sysmon

import (
	"encoding/binary"
	"io/fs"
	"os"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"
)

// procFixture returns testdata/proc (recorded and hand-written /proc files)
// as a MapFS that tests may change.
func procFixture(t *testing.T) fstest.MapFS {
	t.Helper()
	out := fstest.MapFS{}
	root := os.DirFS("testdata/proc")
	err := fs.WalkDir(root, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(root, p)
		if err != nil {
			return err
		}
		out[p] = &fstest.MapFile{Data: b}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// sysFixture is a /sys with the files sysmon reads. (Not in testdata:
// module zips refuse the ':' of dev/block/8:0.)
func sysFixture() fstest.MapFS {
	return fstest.MapFS{
		"kernel/mm/transparent_hugepage/enabled": {Data: []byte("always [madvise] never\n")},
		"kernel/mm/transparent_hugepage/defrag":  {Data: []byte("always defer defer+madvise [madvise] never\n")},
		"kernel/debug/sched/migration_cost_ns":   {Data: []byte("500000\n")},
		"dev/block/8:2/queue/read_ahead_kb":      {Data: []byte("4096\n")},
		"dev/block/8:2/queue/scheduler":          {Data: []byte("[none] mq-deadline kyber bfq\n")},
	}
}

func setFile(fsys fstest.MapFS, name, content string) {
	fsys[name] = &fstest.MapFile{Data: []byte(content)}
}

func TestParseProcStat(t *testing.T) {
	b, err := os.ReadFile("testdata/proc/stat")
	if err != nil {
		t.Fatal(err)
	}
	got, btime, err := parseProcStat(b)
	if err != nil {
		t.Fatal(err)
	}
	// cpu  34495 28 12515 68357 724 0 1169 43 0 0
	want := cpuTimes{user: 34495, nice: 28, system: 12515, idle: 68357, iowait: 724, irq: 0, softirq: 1169, steal: 43}
	if got != want || btime != 1795422240 {
		t.Errorf("got %+v btime %d, want %+v btime 1795422240", got, btime, want)
	}
	for _, bad := range []string{"", "intr 1 2 3\n", "cpu 1 2\n", "cpu 1 2 x 4 5\n"} {
		if _, _, err := parseProcStat([]byte(bad)); err == nil {
			t.Errorf("parseProcStat(%q): no error", bad)
		}
	}
}

func TestParsePidStat(t *testing.T) {
	for _, tc := range []struct {
		file string
		want pidStat
	}{
		// Recorded: a PostgreSQL 15 postmaster.
		{"3105/stat", pidStat{pid: 3105, ppid: 1, comm: "postgres", state: 'S', utime: 1, stime: 2, cutime: 6, cstime: 12, start: 16008}},
		{"3121/stat", pidStat{pid: 3121, ppid: 3120, comm: "postgres", state: 'R', utime: 30, stime: 10, start: 16600}},
		// A command name with a space and parentheses.
		{"4000/stat", pidStat{pid: 4000, ppid: 1, comm: "tricky) (name", state: 'S', utime: 99999, stime: 99999, start: 900}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			b, err := os.ReadFile("testdata/proc/" + tc.file)
			if err != nil {
				t.Fatal(err)
			}
			got, err := parsePidStat(b)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
	for _, bad := range []string{"", "12 postgres S 1", "x (a) S 1 2 3", "12 (a) S 1 2 3 4 5"} {
		if _, err := parsePidStat([]byte(bad)); err == nil {
			t.Errorf("parsePidStat(%q): no error", bad)
		}
	}
}

func TestParseDiskstats(t *testing.T) {
	b, err := os.ReadFile("testdata/proc/diskstats")
	if err != nil {
		t.Fatal(err)
	}
	disks, err := parseDiskstats(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(disks) != 12 {
		t.Fatalf("%d disks, want 12", len(disks))
	}
	byName := map[string]diskStat{}
	for _, d := range disks {
		byName[d.name] = d
	}
	for name, want := range map[string]diskStat{
		// Recorded (kernel 6.18, 20 fields).
		"vda": {major: 254, minor: 0, name: "vda", reads: 117173, readSectors: 2659898, writes: 19576, writeSectors: 1377616, ioMS: 7384},
		// 18 fields (discards, no flushes).
		"sda2": {major: 8, minor: 2, name: "sda2", reads: 990, readSectors: 79920, writes: 2000, writeSectors: 160000, ioMS: 1495},
		// 14 fields (kernels before 4.18).
		"sdb1": {major: 8, minor: 17, name: "sdb1", reads: 50, readSectors: 400, writes: 70, writeSectors: 560, ioMS: 25},
	} {
		if got := byName[name]; got != want {
			t.Errorf("%s: got %+v\nwant %+v", name, got, want)
		}
	}
	if _, err := parseDiskstats([]byte("8 0 sda 1 2 3\n")); err == nil {
		t.Error("short line: no error")
	}
}

func TestFindDevice(t *testing.T) {
	proc := procFixture(t)
	for _, tc := range []struct {
		dir, point, fsType, disk string // disk "" means none, with an error
	}{
		{"/var/lib/postgresql/15/main", "/var/lib/postgresql", "xfs", "sda2"},
		{"/var/lib/postgresql/15/main/pg_wal", "/var/lib/postgresql/15/main/pg_wal", "ext4", "sdb1"},
		{"/var/lib/postgresql-old", "/", "ext4", "vda"}, // a prefix of the name is not a parent
		{"/srv/mysql/data", "/srv/mysql", "ext4", "dm-0"},
		{"/data/pg", "/data", "btrfs", "nvme0n1p2"}, // anonymous 0:46, found by source
		{"/mnt/with space/db", "/mnt/with space", "ext4", "sda1"},
		{"/stacked/db", "/stacked", "ext4", "sdc2"}, // the later of two mounts on one point
		{"/home/x", "/", "ext4", "vda"},
		{"/", "/", "ext4", "vda"},
		{"/var/lib/docker/overlay2/abc/merged/pgdata", "/var/lib/docker/overlay2/abc/merged", "overlay", ""},
		{"/tmp/ram/pg", "/tmp/ram", "tmpfs", ""},
		{"/nfs/db", "/nfs", "nfs4", ""},
	} {
		t.Run("dir="+tc.dir, func(t *testing.T) {
			d, err := findDevice(proc, "self/mountinfo", tc.dir)
			if d.point != tc.point || d.fsType != tc.fsType {
				t.Errorf("mount %s (%s), want %s (%s)", d.point, d.fsType, tc.point, tc.fsType)
			}
			switch {
			case tc.disk == "" && (err == nil || d.disk != nil):
				t.Errorf("disk %v, err %v; want no disk and an error", d.disk, err)
			case tc.disk == "" && !strings.Contains(err.Error(), "not a block device"):
				t.Errorf("error %q does not say there is no block device", err)
			case tc.disk != "" && (err != nil || d.disk == nil || d.disk.name != tc.disk):
				t.Errorf("disk %v, err %v; want %s", d.disk, err, tc.disk)
			}
		})
	}
}

func TestParseMountinfoErrors(t *testing.T) {
	for _, bad := range []string{
		"27 1 254:0 / / rw,relatime ext4 /dev/vda rw\n", // no separator
		"27 1 254 / / rw,relatime - ext4 /dev/vda rw\n", // no minor
		"27 1 254:0 / / rw - ext4\n",                    // no source
	} {
		if _, err := parseMountinfo([]byte(bad)); err == nil {
			t.Errorf("parseMountinfo(%q): no error", bad)
		}
	}
}

func TestOSSettings(t *testing.T) {
	proc := procFixture(t)
	dev, err := findDevice(proc, "self/mountinfo", "/var/lib/postgresql/15/main")
	if err != nil {
		t.Fatal(err)
	}
	got := osSettings(proc, sysFixture(), &dev)
	want := map[string]string{
		"os.vm.dirty_background_bytes":      "0",
		"os.vm.dirty_background_ratio":      "10",
		"os.vm.dirty_bytes":                 "0",
		"os.vm.dirty_ratio":                 "20",
		"os.vm.nr_hugepages":                "0",
		"os.vm.overcommit_memory":           "0",
		"os.vm.swappiness":                  "60",
		"os.kernel.sched_autogroup_enabled": "1",
		"os.kernel.sched_migration_cost_ns": "500000", // from debugfs: not in /proc/sys
		"os.meminfo.HugePages_Total":        "0",
		"os.meminfo.HugePages_Free":         "0",
		"os.meminfo.HugePages_Rsvd":         "0",
		"os.meminfo.Hugepagesize":           "2048 kB",
		"os.transparent_hugepage.enabled":   "madvise",
		"os.transparent_hugepage.defrag":    "madvise",
		"os.datadir.mount_point":            "/var/lib/postgresql",
		"os.datadir.fstype":                 "xfs",
		"os.datadir.source":                 "/dev/sda2",
		"os.datadir.mount_options":          "rw,noatime",
		"os.datadir.super_options":          "rw,attr2,inode64,logbufs=8,logbsize=32k,noquota",
		"os.datadir.device":                 "sda2",
		"os.datadir.read_ahead_kb":          "4096",
		"os.datadir.scheduler":              "none",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %v\nwant %v", got, want)
	}
	// /proc/sys wins over debugfs.
	setFile(proc, "sys/kernel/sched_migration_cost_ns", "250000\n")
	if got := osSettings(proc, sysFixture(), nil); got["os.kernel.sched_migration_cost_ns"] != "250000" || got["os.datadir.fstype"] != "" {
		t.Errorf("got %v", got)
	}
}

func TestBracketed(t *testing.T) {
	for in, want := range map[string]string{
		"always [madvise] never\n": "madvise",
		"[always] madvise never":   "always",
		"never":                    "never",
		" 4096 \n":                 "4096",
	} {
		if got := bracketed(in); got != want {
			t.Errorf("bracketed(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestUnescapeMount(t *testing.T) {
	for in, want := range map[string]string{`/a\040b`: "/a b", `/tab\011x`: "/tab\tx", `/back\134slash`: `/back\slash`, `/trail\04`: `/trail\04`, "/plain": "/plain"} {
		if got := unescapeMount(in); got != want {
			t.Errorf("unescapeMount(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseAuxvClockTick(t *testing.T) {
	vec := func(size int, pairs ...uint64) []byte {
		b := make([]byte, len(pairs)*size)
		for i, v := range pairs {
			if size == 4 {
				binary.NativeEndian.PutUint32(b[i*4:], uint32(v))
			} else {
				binary.NativeEndian.PutUint64(b[i*8:], v)
			}
		}
		return b
	}
	if got := parseAuxvClockTick(vec(8, 6, 4096, 17, 100, 0, 0), 8); got != 100 {
		t.Errorf("64-bit: %d, want 100", got)
	}
	if got := parseAuxvClockTick(vec(4, 6, 4096, 17, 1024, 0, 0), 4); got != 1024 {
		t.Errorf("32-bit: %d, want 1024", got)
	}
	if got := parseAuxvClockTick(vec(8, 6, 4096, 0, 0, 17, 50), 8); got != 0 {
		t.Errorf("after AT_NULL: %d, want 0", got)
	}
	if got := clockTick(fstest.MapFS{}); got != defaultClockTick {
		t.Errorf("no auxv: %d, want %d", got, defaultClockTick)
	}
}

func TestReadSmall(t *testing.T) {
	big := strings.Repeat("x", 3000)
	fsys := fstest.MapFS{"big": {Data: []byte(big)}, "small": {Data: []byte("ab")}}
	buf := make([]byte, 0, 16)
	b, err := readSmall(fsys, "big", buf)
	if err != nil || string(b) != big {
		t.Fatalf("big: %d bytes, %v", len(b), err)
	}
	b, err = readSmall(fsys, "small", b)
	if err != nil || string(b) != "ab" {
		t.Fatalf("small: %q, %v", b, err)
	}
	if b, err = readSmall(fsys, "none", b); err == nil || len(b) != 0 || cap(b) < 3000 {
		t.Errorf("missing file: %d/%d bytes, %v; want an error and the buffer kept", len(b), cap(b), err)
	}
}

// The data directory from a server's command line, by the flag its engine
// names (PostgreSQL's -D).
func TestDataDirFromCmdline(t *testing.T) {
	proc := fstest.MapFS{
		"1/cmdline": {Data: []byte("/usr/lib/postgresql/15/bin/postgres\x00-D\x00/var/lib/postgresql/15/main\x00-c\x00config_file=/etc/postgresql/15/main/postgresql.conf\x00")},
		"2/cmdline": {Data: []byte("postgres\x00-D/srv/pg\x00")},
		"3/cmdline": {Data: []byte("postgres: checkpointer \x00")},
	}
	for pid, want := range map[int]string{1: "/var/lib/postgresql/15/main", 2: "/srv/pg", 3: "", 4: ""} {
		if got := dataDirFromCmdline(proc, pid, "-D"); got != want {
			t.Errorf("pid %d: %q, want %q", pid, got, want)
		}
	}
	if got := dataDirFromCmdline(proc, 1, ""); got != "" {
		t.Errorf("no flag: %q", got)
	}
}
