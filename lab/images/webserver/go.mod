module kwlab.local/webserver

go 1.24
