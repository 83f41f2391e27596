//! Lowering services: each service's image (a recipe rendered as the environment's is, or
//! `FROM <name>`) and the [`RunService`] a run of a target naming it carries.

use std::collections::BTreeMap;

use crate::model::Task;
use crate::plan::{
    canonical_digest, short_id, EnvImage, ImageNode, LocalEnv, ReadyProbe, RunService,
};
use crate::service::{ReadyCheck, ServiceImage};

use super::{env, manifest, LowerError, LowerOptions};

/// The lowered services of a task: their images by id, and each service as a run starts
/// it, by name.
/// And the image nodes their images are built on (named build contexts), by id.
pub(crate) type Lowered = (
    BTreeMap<String, EnvImage>,
    BTreeMap<String, RunService>,
    BTreeMap<String, ImageNode>,
);

/// The service images by id, every service as a run starts it, by name, and the image
/// nodes of their named build contexts; `trees`: each repository's tree identity.
pub(crate) fn lower_services(
    task: &Task,
    opts: &LowerOptions,
    trees: &BTreeMap<String, String>,
) -> Result<Lowered, LowerError> {
    let mut images = BTreeMap::new();
    let mut services = BTreeMap::new();
    let mut nodes = BTreeMap::new();
    for s in &task.services {
        let image = match &s.image {
            ServiceImage::Recipe(environment) => {
                let recipe = manifest::load(&environment.recipe)?;
                let (image, n) = env::env_image(environment, &recipe, opts, trees)?;
                nodes.extend(n);
                image
            }
            ServiceImage::Named(name) => named_image(name, opts),
        };
        let ready = match &s.ready {
            ReadyCheck::Command(command) => ReadyProbe::Command {
                command: command.clone(),
            },
            ReadyCheck::Tcp(port) => ReadyProbe::Tcp { port: *port },
            ReadyCheck::Started => ReadyProbe::Started,
        };
        services.insert(
            s.name.clone(),
            RunService {
                name: s.name.clone(),
                hostname: s.hostname.clone(),
                image: image.id.clone(),
                environment: s.environment.clone(),
                command: s.command.clone(),
                ready,
                ready_timeout_secs: s.ready_timeout_secs,
                ports: s.ports.clone(),
                memory_bytes: s.limits.memory_bytes,
                cpus_milli: s.limits.cpus_milli,
            },
        );
        images.insert(image.id.clone(), image);
    }
    Ok((images, services, nodes))
}

/// An image the engine holds under `name`, as a one-line Dockerfile (so it is built, tagged
/// and kept like every other image; its id hashes the name: a named image is trusted to
/// stay what it names). A stand-in the runtime resolved (`[images.map]`) is built `FROM`
/// instead, and recorded.
fn named_image(name: &str, opts: &LowerOptions) -> EnvImage {
    let stands_in_for = opts
        .stand_ins
        .get(name)
        .filter(|used| *used != name)
        .map(|_| name.to_string());
    let used = opts.stand_ins.get(name).map_or(name, String::as_str);
    let dockerfile = format!("FROM {used}\n");
    let digest = canonical_digest("taskc.service-image/named/1", &dockerfile);
    let local_digest = canonical_digest("taskc.env-local/named/1", &name);
    EnvImage {
        id: short_id("img", &digest),
        digest,
        recipe: "image".into(),
        params: BTreeMap::new(),
        base_image: used.to_string(),
        stands_in_for,
        from_stand_ins: BTreeMap::new(),
        from_digests: BTreeMap::new(),
        nodes: Vec::new(),
        base_image_id: None,
        dockerfile,
        contexts: BTreeMap::new(),
        context: None,
        local: LocalEnv {
            id: short_id("env", &local_digest),
            digest: local_digest,
            requires: Vec::new(),
            env: BTreeMap::new(),
            setup: Vec::new(),
        },
    }
}
