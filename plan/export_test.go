package plan

// RatesNote is ratesNote, for the tests of package plan_test.
var RatesNote = ratesNote
