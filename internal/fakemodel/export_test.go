package fakemodel

// WaitLog lets the external tests (package fakemodel_test) wait for a line of the server's log.
var WaitLog = waitLog
