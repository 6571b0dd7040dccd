// client-go-peer is the Go side of kube-loom's benchmarks: what client-go v0.37 (the library
// kube-controller-manager is built from) does with the same API server, and the plain-client
// limits the controllers are measured against. Every mode prints one JSON line on stdout.
//
//	client-go-peer informer|informer-protobuf|metadata-informer <kubeconfig> <namespace> <expected> <qps> <burst>
//	client-go-peer list <kubeconfig> <collection path> <full|metadata> <qps> <burst>
//	client-go-peer monitor-lists <kubeconfig> <qps> <burst>
//	client-go-peer create <kubeconfig> <collection path> <count> <qps> <burst>   (object template on stdin)
//	client-go-peer delete <kubeconfig> <collection path> <qps> <burst> [name...]
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
)

// The Accept headers kube-loom sends for full and for metadata-only lists.
const (
	fullListAccept     = "application/json"
	metadataListAccept = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json"
)

// Requests in flight at once for creates and deletes; the rate limiter is what paces them.
const writers = 64

// The reflector's first list: anything the watch cache has, in pages of 500 when no cache serves it.
const firstListPageSize = "500"

func main() {
	if len(os.Args) < 2 {
		fail(errors.New("usage: client-go-peer <informer|informer-protobuf|metadata-informer|list|monitor-lists|create|delete> ..."))
	}
	var err error
	switch mode, args := os.Args[1], os.Args[2:]; mode {
	case "informer", "informer-protobuf", "metadata-informer":
		err = informerSync(mode, args)
	case "list":
		err = rawList(args)
	case "monitor-lists":
		err = monitorLists(args)
	case "create":
		err = create(args)
	case "delete":
		err = deleteAll(args)
	default:
		err = fmt.Errorf("unknown mode %q", mode)
	}
	if err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "client-go-peer:", err)
	os.Exit(1)
}

func emit(result any) {
	line, err := json.Marshal(result)
	if err != nil {
		fail(err)
	}
	fmt.Println(string(line))
}

func need(args []string, n int, usage string) error {
	if len(args) < n {
		return fmt.Errorf("usage: client-go-peer %s", usage)
	}
	return nil
}

// restConfig loads the kubeconfig with client-go's token bucket at qps/burst and JSON on the
// wire, as kube-loom talks to the API server.
func restConfig(kubeconfig, qpsText, burstText string) (*rest.Config, error) {
	config, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, err
	}
	qps, err := strconv.ParseFloat(qpsText, 32)
	if err != nil {
		return nil, fmt.Errorf("qps %q: %w", qpsText, err)
	}
	burst, err := strconv.Atoi(burstText)
	if err != nil {
		return nil, fmt.Errorf("burst %q: %w", burstText, err)
	}
	config.QPS, config.Burst = float32(qps), burst
	config.ContentType = "application/json"
	config.UserAgent = "client-go-peer"
	return config, nil
}

// restClient is a client for absolute paths with the config's rate limiter.
func restClient(config *rest.Config) (rest.Interface, error) {
	clientset, err := kubernetes.NewForConfig(config)
	if err != nil {
		return nil, err
	}
	return clientset.CoreV1().RESTClient(), nil
}

// residentMiB is VmRSS after a full collection, with freed memory handed back to the system as
// kube-loom's benchmark worker does with Bun.gc(true).
func residentMiB() (rss, heap float64) {
	runtime.GC()
	debug.FreeOSMemory()
	var stats runtime.MemStats
	runtime.ReadMemStats(&stats)
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		fail(err)
	}
	match := regexp.MustCompile(`VmRSS:\s+(\d+) kB`).FindSubmatch(status)
	if match == nil {
		fail(errors.New("no VmRSS in /proc/self/status"))
	}
	kib, _ := strconv.ParseFloat(string(match[1]), 64)
	return kib / 1024, float64(stats.HeapAlloc) / (1 << 20)
}

func round1(x float64) float64 {
	return float64(int64(x*10+0.5)) / 10
}

// informerSync times a SharedInformerFactory informer (JSON like kube-loom, or protobuf as
// kube-controller-manager configures its clients) or a metadata informer (client-go always asks
// those for protobuf) of the ConfigMaps of one namespace from creation to synced, and its
// memory once synced.
func informerSync(mode string, args []string) error {
	if err := need(args, 5, mode+" <kubeconfig> <namespace> <expected> <qps> <burst>"); err != nil {
		return err
	}
	namespace := args[1]
	expected, err := strconv.Atoi(args[2])
	if err != nil {
		return fmt.Errorf("expected %q: %w", args[2], err)
	}
	config, err := restConfig(args[0], args[3], args[4])
	if err != nil {
		return err
	}
	baseRss, _ := residentMiB()
	if mode == "informer-protobuf" {
		config.ContentType = "application/vnd.kubernetes.protobuf"
		config.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
	}
	stop := make(chan struct{})
	defer close(stop)
	started := time.Now()
	var informer cache.SharedIndexInformer
	if mode == "metadata-informer" {
		client, err := metadata.NewForConfig(config)
		if err != nil {
			return err
		}
		factory := metadatainformer.NewFilteredSharedInformerFactory(client, 0, namespace, nil)
		informer = factory.ForResource(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}).Informer()
		factory.Start(stop)
	} else {
		clientset, err := kubernetes.NewForConfig(config)
		if err != nil {
			return err
		}
		factory := informers.NewSharedInformerFactoryWithOptions(clientset, 0, informers.WithNamespace(namespace))
		informer = factory.Core().V1().ConfigMaps().Informer()
		factory.Start(stop)
	}
	// Not WaitForCacheSync: it looks every 100 ms, which would round every figure up to that.
	for !informer.HasSynced() {
		time.Sleep(time.Millisecond)
	}
	syncMs := time.Since(started).Milliseconds()
	for len(informer.GetStore().ListKeys()) < expected {
		time.Sleep(10 * time.Millisecond)
	}
	rss, heap := residentMiB()
	emit(map[string]any{
		"variant":    "client-go-" + mode,
		"syncMs":     syncMs,
		"rssMiB":     round1(rss),
		"baseRssMiB": round1(baseRss),
		"heapMiB":    round1(heap),
		"cached":     len(informer.GetStore().ListKeys()),
	})
	return nil
}

// continueToken finds the list's continue token in the first bytes of a body, where the API
// server writes the list's metadata, without decoding the rest.
var continueToken = regexp.MustCompile(`"continue":"([^"]*)"`)

// readList GETs one list as a reflector's first list asks for it and reads every byte, decoding
// nothing but the continue token; returns the bytes read and the pages it took.
func readList(ctx context.Context, client rest.Interface, path, accept string) (int64, int, error) {
	var total int64
	token := ""
	for pages := 1; ; pages++ {
		request := client.Get().AbsPath(path).SetHeader("Accept", accept).Param("limit", firstListPageSize)
		if token == "" {
			request = request.Param("resourceVersion", "0")
		} else {
			request = request.Param("continue", token)
		}
		body, err := request.Stream(ctx)
		if err != nil {
			return total, pages, fmt.Errorf("GET %s: %w", path, err)
		}
		reader := bufio.NewReaderSize(body, 64<<10)
		head, _ := reader.Peek(4096)
		token = ""
		if match := continueToken.FindSubmatch(head); match != nil {
			token = string(match[1])
		}
		n, err := io.Copy(io.Discard, reader)
		body.Close()
		total += n
		if err != nil {
			return total, pages, fmt.Errorf("GET %s: %w", path, err)
		}
		if token == "" {
			return total, pages, nil
		}
	}
}

// rawList is the limit of an informer's first sync: the same LIST, read to the end, undecoded.
func rawList(args []string) error {
	if err := need(args, 5, "list <kubeconfig> <collection path> <full|metadata> <qps> <burst>"); err != nil {
		return err
	}
	config, err := restConfig(args[0], args[3], args[4])
	if err != nil {
		return err
	}
	client, err := restClient(config)
	if err != nil {
		return err
	}
	accept := fullListAccept
	if args[2] == "metadata" {
		accept = metadataListAccept
	}
	started := time.Now()
	bytes, pages, err := readList(context.Background(), client, args[1], accept)
	if err != nil {
		return err
	}
	emit(map[string]any{"variant": "raw-list-" + args[2], "syncMs": time.Since(started).Milliseconds(), "bytes": bytes, "pages": pages})
	return nil
}

// monitorLists is the limit of the garbage collector's start-up: the discovery it makes, then
// every deletable resource's metadata LIST at once, read undecoded, under the collector's QPS.
func monitorLists(args []string) error {
	if err := need(args, 3, "monitor-lists <kubeconfig> <qps> <burst>"); err != nil {
		return err
	}
	started := time.Now()
	config, err := restConfig(args[0], args[1], args[2])
	if err != nil {
		return err
	}
	client, err := restClient(config)
	if err != nil {
		return err
	}
	discoveryClient, err := discovery.NewDiscoveryClientForConfig(config)
	if err != nil {
		return err
	}
	// Partial failures (an aggregated API down) leave the groups that answered, as for the collector.
	lists, err := discoveryClient.ServerPreferredResources()
	if err != nil && len(lists) == 0 {
		return err
	}
	var paths []string
	for _, list := range discovery.FilteredBy(discovery.SupportsAllVerbs{Verbs: []string{"list", "watch", "delete"}}, lists) {
		prefix := "/apis/" + list.GroupVersion
		if !strings.Contains(list.GroupVersion, "/") {
			prefix = "/api/" + list.GroupVersion
		}
		for _, resource := range list.APIResources {
			if resource.Name == "events" {
				continue
			}
			paths = append(paths, prefix+"/"+resource.Name)
		}
	}
	var wait sync.WaitGroup
	var bytes atomic.Int64
	errs := make([]error, len(paths))
	for i, path := range paths {
		wait.Add(1)
		go func() {
			defer wait.Done()
			n, _, err := readList(context.Background(), client, path, metadataListAccept)
			bytes.Add(n)
			errs[i] = err
		}()
	}
	wait.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	emit(map[string]any{"variant": "monitor-lists", "syncMs": time.Since(started).Milliseconds(), "resources": len(paths), "bytes": bytes.Load()})
	return nil
}

// inParallel runs work(i) for i in [0, n) on a fixed number of goroutines; the first error wins.
func inParallel(n int, work func(i int) error) error {
	var next atomic.Int64
	var wait sync.WaitGroup
	errs := make([]error, writers)
	for w := range min(writers, n) {
		wait.Add(1)
		go func() {
			defer wait.Done()
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				if err := work(i); err != nil {
					errs[w] = err
					return
				}
			}
		}()
	}
	wait.Wait()
	return errors.Join(errs...)
}

// create POSTs count copies of the object on stdin (give it a generateName) as fast as qps allows.
func create(args []string) error {
	if err := need(args, 5, "create <kubeconfig> <collection path> <count> <qps> <burst> < object.json"); err != nil {
		return err
	}
	count, err := strconv.Atoi(args[2])
	if err != nil {
		return fmt.Errorf("count %q: %w", args[2], err)
	}
	config, err := restConfig(args[0], args[3], args[4])
	if err != nil {
		return err
	}
	client, err := restClient(config)
	if err != nil {
		return err
	}
	body, err := io.ReadAll(os.Stdin)
	if err != nil {
		return err
	}
	started := time.Now()
	err = inParallel(count, func(int) error {
		return client.Post().AbsPath(args[1]).SetHeader("Content-Type", "application/json").Body(body).Do(context.Background()).Error()
	})
	if err != nil {
		return err
	}
	emit(map[string]any{"variant": "create", "seconds": time.Since(started).Seconds(), "requests": count})
	return nil
}

// deleteAll DELETEs the named objects of a collection (all of them when none are named) as
// fast as qps allows; listing them first is not timed.
func deleteAll(args []string) error {
	if err := need(args, 4, "delete <kubeconfig> <collection path> <qps> <burst> [name...]"); err != nil {
		return err
	}
	config, err := restConfig(args[0], args[2], args[3])
	if err != nil {
		return err
	}
	client, err := restClient(config)
	if err != nil {
		return err
	}
	names := args[4:]
	if len(names) == 0 {
		var list metav1.PartialObjectMetadataList
		err := client.Get().AbsPath(args[1]).SetHeader("Accept", metadataListAccept).Do(context.Background()).Into(&list)
		if err != nil {
			return fmt.Errorf("GET %s: %w", args[1], err)
		}
		for _, item := range list.Items {
			names = append(names, item.Name)
		}
		slices.Sort(names)
	}
	started := time.Now()
	err = inParallel(len(names), func(i int) error {
		return client.Delete().AbsPath(args[1], names[i]).Do(context.Background()).Error()
	})
	if err != nil {
		return err
	}
	emit(map[string]any{"variant": "delete", "seconds": time.Since(started).Seconds(), "requests": len(names)})
	return nil
}
