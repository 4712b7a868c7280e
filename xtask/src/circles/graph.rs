//! Files and the files each one imports, and the circles among them.

use petgraph::algo::tarjan_scc;
use petgraph::graph::{DiGraph, NodeIndex};
use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// Files by name, and which file imports which.
#[derive(Default)]
pub struct Graph {
    names: Vec<String>,
    index: BTreeMap<String, usize>,
    edges: BTreeSet<(usize, usize)>,
    /// Per import, what the importing file names of the other, first seen.
    why: BTreeMap<(usize, usize), String>,
}

impl Graph {
    /// The position of the file `name`, added when new.
    pub fn file(&mut self, name: &str) -> usize {
        if let Some(&at) = self.index.get(name) {
            return at;
        }
        self.names.push(name.to_string());
        self.index.insert(name.to_string(), self.names.len() - 1);
        self.names.len() - 1
    }

    /// File `from` imports file `to`, naming `what` of it; a file
    /// importing itself is no circle.
    pub fn import(&mut self, from: usize, to: usize, what: &str) {
        if from != to {
            self.edges.insert((from, to));
            self.why
                .entry((from, to))
                .or_insert_with(|| what.to_string());
        }
    }

    /// What file `from` names of file `to`, first seen.
    pub fn why(&self, from: &str, to: &str) -> Option<&str> {
        let key = (*self.index.get(from)?, *self.index.get(to)?);
        self.why.get(&key).map(String::as_str)
    }

    /// Whether file `from` imports file `to`.
    #[cfg(test)]
    pub fn imports(&self, from: &str, to: &str) -> bool {
        match (self.index.get(from), self.index.get(to)) {
            (Some(&a), Some(&b)) => self.edges.contains(&(a, b)),
            _ => false,
        }
    }

    /// The files, by name.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// Every import, as names.
    pub fn imports_by_name(&self) -> impl Iterator<Item = (&str, &str)> {
        self.edges
            .iter()
            .map(|&(a, b)| (self.names[a].as_str(), self.names[b].as_str()))
    }

    /// One circle per set of files that import each other, directly or
    /// around: the shortest one through the set's first file, as names from
    /// that file back to it. Sorted, so that a report reads the same every run.
    #[cfg(test)]
    pub fn circles(&self) -> Vec<Vec<String>> {
        self.tangles()
            .into_iter()
            .map(|(circle, _)| circle)
            .collect()
    }

    /// Per set of files that import each other: its shortest circle, as
    /// [`Graph::circles`] gives it, and how many files the set holds.
    pub fn tangles(&self) -> Vec<(Vec<String>, usize)> {
        let mut graph: DiGraph<usize, ()> = DiGraph::new();
        let nodes: Vec<NodeIndex> = (0..self.names.len()).map(|i| graph.add_node(i)).collect();
        for &(a, b) in &self.edges {
            graph.add_edge(nodes[a], nodes[b], ());
        }
        let mut circles: Vec<(Vec<String>, usize)> = tarjan_scc(&graph)
            .into_iter()
            .filter(|set| set.len() > 1)
            .map(|set| {
                let members: BTreeSet<usize> = set.iter().map(|n| graph[*n]).collect();
                let start = members
                    .iter()
                    .copied()
                    .min_by_key(|&m| &self.names[m])
                    .unwrap_or_default();
                let circle = self
                    .shortest_circle(start, &members)
                    .into_iter()
                    .map(|m| self.names[m].clone())
                    .collect();
                (circle, members.len())
            })
            .collect();
        circles.sort();
        circles
    }

    /// The shortest path from `start` back to it within `members`, as
    /// positions, `start` at both ends.
    fn shortest_circle(&self, start: usize, members: &BTreeSet<usize>) -> Vec<usize> {
        let mut came_from: BTreeMap<usize, usize> = BTreeMap::new();
        let mut queue = VecDeque::from([start]);
        while let Some(at) = queue.pop_front() {
            let next = self
                .edges
                .range((at, 0)..(at + 1, 0))
                .map(|&(_, b)| b)
                .filter(|b| members.contains(b));
            for b in next {
                if b == start {
                    let mut path = vec![start, at];
                    let mut cur = at;
                    while let Some(&prev) = came_from.get(&cur) {
                        path.push(prev);
                        cur = prev;
                    }
                    path.reverse();
                    // `path` ran start ← ... ← at ← start; reversed it is start → ... → at → start.
                    return path;
                }
                if let std::collections::btree_map::Entry::Vacant(e) = came_from.entry(b) {
                    e.insert(at);
                    queue.push_back(b);
                }
            }
        }
        vec![start, start]
    }
}

#[cfg(test)]
mod tests {
    use super::Graph;

    #[test]
    fn a_circle_is_reported_from_its_first_file_back_to_it() {
        let mut g = Graph::default();
        let (a, b, c, d) = (g.file("a"), g.file("b"), g.file("c"), g.file("d"));
        g.import(b, c, "c::x");
        g.import(c, a, "a::x");
        g.import(a, b, "b::x");
        g.import(c, d, "d::x");
        assert_eq!(g.circles(), vec![vec!["a", "b", "c", "a"]]);
    }

    #[test]
    fn files_importing_in_one_direction_make_no_circle() {
        let mut g = Graph::default();
        let (a, b, c) = (g.file("a"), g.file("b"), g.file("c"));
        g.import(a, b, "b::x");
        g.import(b, c, "c::x");
        g.import(a, c, "c::x");
        g.import(a, a, "self::x");
        assert!(g.circles().is_empty());
    }
}
