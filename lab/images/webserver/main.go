// A tiny static web server: the lab's image for `kubectl run` tests. It answers every request with the pod's
// hostname, so a test can tell which pod served it. Listens on $PORT (default 8080).
package main

import (
	"fmt"
	"log"
	"net/http"
	"os"
)

func main() {
	host, _ := os.Hostname()
	port := os.Getenv("PORT")
	if port == "" {
		port = "8080"
	}
	http.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "kwlab-web %s\n", host)
	})
	http.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) { fmt.Fprintln(w, "ok") })
	log.Printf("kwlab-web listening on :%s", port)
	log.Fatal(http.ListenAndServe(":"+port, nil))
}
