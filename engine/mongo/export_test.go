package mongo

// CPUTime is cpuTime for the package's external tests.
var CPUTime = cpuTime
