package k8s_test

import (
	"fmt"
	"log"
	"time"

	"github.com/dbarena/dbarena/k8s"
)

// Two shards of oltp_read_write on PostgreSQL: the password goes into a
// Secret, which the pods read through PGPASSWORD.
func ExampleManifests() {
	y, err := k8s.Manifests(k8s.JobSpec{
		Name:      "dbarena-r1",
		Namespace: "bench",
		Image:     "registry.example/dbarena:1.0",
		Shards:    2,
		RunID:     "r1",
		Workload:  "oltp_read_write",
		Target:    "postgres://bench@db.bench.svc:5432/bench",
		Flags:     []string{"--threads=8", "--time=1m0s"},
		Password:  k8s.Password{Env: "PGPASSWORD", Value: "hunter2"},
		Resources: k8s.Resources{CPU: "1", Memory: "512Mi"},
		TTL:       time.Hour,
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(string(y))
	// Output:
	// # dbarena, run id r1: workload oltp_read_write in 2 shards against postgres://bench@db.bench.svc:5432/bench, image registry.example/dbarena:1.0
	// #
	// #   kubectl apply -f job.yaml
	// #   kubectl wait --for=condition=complete --timeout=1h -n bench job/dbarena-r1
	// #   dbarena merge --from 'postgres://bench@db.bench.svc:5432/bench' --run-id r1 -o merged.json
	// #
	// # A failed shard is not retried (backoffLimitPerIndex 0): the Job ends
	// # Failed, and kubectl wait above waits until its timeout. The failed ones:
	// #   kubectl get -n bench job/dbarena-r1 -o jsonpath='{.status.failedIndexes}'
	// apiVersion: v1
	// data:
	//   password: aHVudGVyMg==
	// kind: Secret
	// metadata:
	//   labels:
	//     app.kubernetes.io/instance: dbarena-r1
	//     app.kubernetes.io/name: dbarena
	//     dbarena.dev/run-id: r1
	//   name: dbarena-r1-password
	//   namespace: bench
	// type: Opaque
	// ---
	// apiVersion: batch/v1
	// kind: Job
	// metadata:
	//   labels:
	//     app.kubernetes.io/instance: dbarena-r1
	//     app.kubernetes.io/name: dbarena
	//     dbarena.dev/run-id: r1
	//   name: dbarena-r1
	//   namespace: bench
	// spec:
	//   backoffLimitPerIndex: 0
	//   completionMode: Indexed
	//   completions: 2
	//   parallelism: 2
	//   template:
	//     metadata:
	//       labels:
	//         app.kubernetes.io/instance: dbarena-r1
	//         app.kubernetes.io/name: dbarena
	//         dbarena.dev/run-id: r1
	//     spec:
	//       automountServiceAccountToken: false
	//       containers:
	//       - args:
	//         - run
	//         - oltp_read_write
	//         - --target=postgres://bench@db.bench.svc:5432/bench
	//         - --shard=$(JOB_COMPLETION_INDEX)/2
	//         - --run-id=r1
	//         - --threads=8
	//         - --time=1m0s
	//         - --out=/results/shard-$(JOB_COMPLETION_INDEX).json
	//         command:
	//         - /dbarena
	//         env:
	//         - name: JOB_COMPLETION_INDEX
	//           valueFrom:
	//             fieldRef:
	//               apiVersion: v1
	//               fieldPath: metadata.labels['batch.kubernetes.io/job-completion-index']
	//         - name: DBARENA_HOME
	//           value: /tmp/dbarena
	//         - name: PGPASSWORD
	//           valueFrom:
	//             secretKeyRef:
	//               key: password
	//               name: dbarena-r1-password
	//         image: registry.example/dbarena:1.0
	//         name: dbarena
	//         resources:
	//           requests:
	//             cpu: "1"
	//             memory: 512Mi
	//         securityContext:
	//           allowPrivilegeEscalation: false
	//           capabilities:
	//             drop:
	//             - ALL
	//           readOnlyRootFilesystem: true
	//           runAsNonRoot: true
	//         volumeMounts:
	//         - mountPath: /results
	//           name: results
	//         - mountPath: /tmp
	//           name: tmp
	//       enableServiceLinks: false
	//       restartPolicy: Never
	//       securityContext:
	//         fsGroup: 65532
	//         runAsGroup: 65532
	//         runAsNonRoot: true
	//         runAsUser: 65532
	//         seccompProfile:
	//           type: RuntimeDefault
	//       topologySpreadConstraints:
	//       - labelSelector:
	//           matchLabels:
	//             app.kubernetes.io/instance: dbarena-r1
	//             dbarena.dev/run-id: r1
	//         maxSkew: 1
	//         topologyKey: kubernetes.io/hostname
	//         whenUnsatisfiable: ScheduleAnyway
	//       volumes:
	//       - emptyDir: {}
	//         name: results
	//       - emptyDir: {}
	//         name: tmp
	//   ttlSecondsAfterFinished: 3600
	// status: {}
}
