# No base image can be pulled where we build, and none is needed: the image is
# the static binary alone (built by `make build`, CGO_ENABLED=0);
# test/docker's TestImageSize alarms above a 40 MiB ceiling.
FROM scratch
COPY bin/throttlebench /throttlebench
ENTRYPOINT ["/throttlebench"]
# With no arguments: measure inside the container's own limits, for a person.
CMD ["run", "--cgroup", "current", "--format", "text"]
