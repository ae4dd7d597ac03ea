# Kubernetes (docs/kubernetes.md). Nothing here talks to a cluster or a Docker engine by itself:
#   make kube-check    validate the manifests against the Kubernetes schema, run the exchange
#                     with stand-in student pods (one uid, their own mounts), lint the image
#                     recipe, and run the grading Job's command line as its pods would (shards
#                     against a throwaway PostgreSQL, as uid 1000, sandboxed)
#   make kube-image    build the course image (needs a Docker engine; not run on this machine)
IMAGE ?= registry.example.org/attention-lab/singleuser:$(shell sed -n 's/^version = "\(.*\)"/\1/p' pyproject.toml)

.PHONY: kube-check kube-image

kube-check: setup-grader setup-test setup-postgres sandbox-deps postgres-deps ## Hub admins: Validate the Kubernetes manifests and image recipe; run the sharded grading Job here
	$(PYTEST) tests/test_k8s_manifests.py tests/test_k8s_exchange.py tests/attention_grader/exchange/test_exchange_mounts.py tests/test_k8s_image.py tests/attention_grader/batch/test_shards.py tests/test_k8s_grading.py $(PYTEST_ARGS)

kube-image: ## Hub admins: Build the course image the z2jh values and grading Jobs name (needs a Docker engine)
	docker build -f docker/singleuser.Dockerfile -t $(IMAGE) .
