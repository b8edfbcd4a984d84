package airline

import (
	"fmt"
	"math/rand/v2"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/workload"
)

// The reference data: aircraft and flight schedules. The study loaded
// public airline data that cannot be fetched here; these are generated
// deterministically from the seed with the same shape: real aircraft types
// and their seat counts, three-letter airport codes, schedules between
// them with week-day patterns, times and durations from the distance.

// aircraftType is a real type: its name, ICAO designator and the range of
// seats airlines fit.
type aircraftType struct {
	name     string
	icao     string
	min, max int
	country  string
}

var aircraftTypes = []aircraftType{
	{"Airbus A220-300", "BCS3", 120, 160, "Canada"},
	{"Airbus A319", "A319", 110, 156, "France"},
	{"Airbus A320", "A320", 140, 186, "France"},
	{"Airbus A321neo", "A21N", 180, 244, "Germany"},
	{"Airbus A330-300", "A333", 250, 440, "France"},
	{"Airbus A350-900", "A359", 280, 350, "France"},
	{"Airbus A380-800", "A388", 480, 615, "France"},
	{"ATR 72-600", "AT76", 68, 78, "France"},
	{"Boeing 737-800", "B738", 160, 189, "United States"},
	{"Boeing 737 MAX 8", "B38M", 162, 210, "United States"},
	{"Boeing 757-200", "B752", 180, 239, "United States"},
	{"Boeing 767-300ER", "B763", 210, 290, "United States"},
	{"Boeing 777-300ER", "B77W", 300, 420, "United States"},
	{"Boeing 787-9", "B789", 250, 330, "United States"},
	{"Bombardier CRJ900", "CRJ9", 76, 90, "Canada"},
	{"De Havilland Dash 8-400", "DH8D", 68, 90, "Canada"},
	{"Embraer E175", "E175", 76, 88, "Brazil"},
	{"Embraer E190", "E190", 96, 114, "Brazil"},
	{"Embraer E195-E2", "E295", 120, 146, "Brazil"},
	{"Sukhoi Superjet 100", "SU95", 87, 108, "Russia"},
}

// airports is how many airport codes schedules fly between.
const airports = 400

// codes are n distinct upper-case codes of the given length, from r.
func codes(r *rand.Rand, n, length int) []string {
	seen := map[string]bool{}
	out := make([]string, 0, n)
	for len(out) < n {
		b := make([]byte, length)
		for i := range b {
			b[i] = byte('A' + r.IntN(26))
		}
		if s := string(b); !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// referenceData is the generated aircraft and schedules.
type referenceData struct {
	aircraft  [][]any // id, name, icao, iata, capacity, country
	schedules [][]any // id, from, to, valid_from, valid_until, days, departure, arrival, flight, aircraft_iata, duration
}

func generate(seed uint64, nAircraft, nSchedules int) *referenceData {
	r := rand.New(rand.NewPCG(seed, 0xa1e1))
	d := &referenceData{}
	iatas := codes(r, nAircraft, 3)
	for i := 0; i < nAircraft; i++ {
		t := aircraftTypes[r.IntN(len(aircraftTypes))]
		capacity := t.min + r.IntN(t.max-t.min+1)
		d.aircraft = append(d.aircraft, []any{int64(i + 1), t.name, t.icao, iatas[i], int64(capacity), t.country})
	}
	ports := codes(r, airports, 3)
	airlines := codes(r, 60, 2)
	for i := 0; i < nSchedules; i++ {
		from := r.IntN(airports)
		to := (from + 1 + r.IntN(airports-1)) % airports
		duration := 35 + r.IntN(14*60-35) // 35 min to 14 h
		dep := r.IntN(24*60/5) * 5
		arr := (dep + duration) % (24 * 60)
		days := ""
		for day := 1; day <= 7; day++ {
			if r.IntN(10) < 7 {
				days += fmt.Sprint(day)
			}
		}
		if days == "" {
			days = fmt.Sprint(1 + r.IntN(7))
		}
		validFrom := 20260101 + int64(r.IntN(3))*100 // Jan, Feb or Mar
		validUntil := validFrom + 10000              // a year later
		ac := d.aircraft[r.IntN(nAircraft)]
		flight := fmt.Sprintf("%s%d", airlines[r.IntN(len(airlines))], 1+r.IntN(9999))
		d.schedules = append(d.schedules, []any{int64(i + 1), ports[from], ports[to], validFrom, validUntil, days,
			fmt.Sprintf("%02d:%02d", dep/60, dep%60), fmt.Sprintf("%02d:%02d", arr/60, arr%60), flight, ac[3], int64(duration)})
	}
	return d
}

func source(rows [][]any) engine.RowSource {
	return workload.FuncRows(len(rows), func(i int) []any { return rows[i] })
}
