# No base image can be pulled where we build, and none is needed: the image is
# the static binary alone (built by `make build`, CGO_ENABLED=0), about 6 MB;
# test/docker's TestImageSize keeps it at most 10 MiB.
FROM scratch
COPY bin/throttlebench /throttlebench
ENTRYPOINT ["/throttlebench"]
# With no arguments: measure inside the container's own limits, for a person.
CMD ["run", "--cgroup", "current", "--format", "text"]
