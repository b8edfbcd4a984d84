package docolap

import "strconv"

// event is what the payload writers share about the event being made.
type event struct {
	g     *Generator
	r     rng
	e     enc
	i     int64
	t     int64 // created_at, Unix seconds
	typ   EventType
	actor ident
	repo  repoInfo
	// action is IssuesEvent's and PullRequestEvent's payload.action;
	// refType CreateEvent's ref_type.
	action, refType string
}

// AppendEvent appends event i (0 ≤ i < Events) as compact JSON in the
// 2015 Events API format: id (a numeric string), type, actor, repo,
// payload (its shape depends on the type), public, created_at, and org
// only when the repository belongs to an organization.
func (g *Generator) AppendEvent(dst []byte, i int64) []byte { return g.appendEvent(dst, i, false) }

// AppendEventBSON appends event i as the BSON document MongoDB stores for
// AppendEvent's JSON (the same members in the same order; integers as
// int32 where they fit, else int64), for loading it without parsing JSON.
func (g *Generator) AppendEventBSON(dst []byte, i int64) []byte { return g.appendEvent(dst, i, true) }

func (g *Generator) appendEvent(dst []byte, i int64, bson bool) []byte {
	v := event{g: g, r: g.rng(i), i: i, t: g.Time(i)}
	v.e.bson = bson
	r := &v.r
	id := firstEventID + i*36/10 + int64(r.next()%3) // as ID
	if u := r.intn(botShareDenom); u < g.botCum[len(g.botCum)-1] {
		b := 0
		for u >= g.botCum[b] {
			b++
		}
		bt := &bots[b]
		x, c := r.intn(100)*sumInts(bt.wts)/100, 0
		for j, w := range bt.wts {
			if c += w; x < c {
				v.typ = bt.types[j]
				break
			}
		}
		v.actor = ident{bt.id, bt.login}
		j := uint64(botRepoLaw.rank(r.float(), int64(bt.repos)))
		v.repo = g.repoInfo(int64(mix(g.seed^uint64(b)<<32^j)%1000000), v.actor)
		switch v.typ {
		case IssuesEvent:
			v.action = "opened"
		case CreateEvent:
			v.refType = "tag"
			if bt.id == bots[0].id {
				v.refType = "repository"
			}
		}
	} else {
		x := r.intn(typeShareDenom)
		for v.typ = 0; x >= g.typeCum[v.typ]; v.typ++ {
		}
		v.actor = v.someActor()
		k := repoLaw.rank(r.float(), reposAt(i))
		switch v.typ {
		case CreateEvent:
			switch x := r.intn(100); {
			case x < 40:
				v.refType = "repository"
				k = -i - 1 // a new repository, its creator's
			case x < 85:
				v.refType = "branch"
			default:
				v.refType = "tag"
			}
		case IssuesEvent:
			switch x := r.intn(100); {
			case x < 55:
				v.action = "opened"
			case x < 97:
				v.action = "closed"
			default:
				v.action = "reopened"
			}
		case PullRequestEvent:
			switch x := r.intn(100); {
			case x < 52:
				v.action = "opened"
			case x < 98:
				v.action = "closed"
			default:
				v.action = "reopened"
			}
		}
		v.repo = g.repoInfo(k, v.actor)
	}

	v.e.b = dst
	e := &v.e
	e.obj()
	at := e.beginStr("id")
	e.b = strconv.AppendInt(e.b, id, 10)
	e.endStr(at)
	e.str("type", v.typ.String())
	e.key("actor")
	e.obj()
	e.int("id", v.actor.id)
	e.str("login", v.actor.login)
	e.str("gravatar_id", "")
	e.str("url", "https://api.github.com/users/", v.actor.login)
	at = e.beginStr("avatar_url")
	e.b = append(e.b, "https://avatars.githubusercontent.com/u/"...)
	e.b = strconv.AppendInt(e.b, v.actor.id, 10)
	e.b = append(e.b, '?')
	e.endStr(at)
	e.end()
	e.key("repo")
	e.obj()
	e.int("id", v.repo.id)
	e.str("name", v.repo.name)
	e.str("url", "https://api.github.com/repos/", v.repo.name)
	e.end()
	e.key("payload")
	e.obj()
	v.payload()
	e.end()
	e.bool("public", true)
	e.time("created_at", v.t)
	if v.repo.org.id != 0 {
		o := v.repo.org
		e.key("org")
		e.obj()
		e.int("id", o.id)
		e.str("login", o.login)
		e.str("gravatar_id", "")
		e.str("url", "https://api.github.com/orgs/", o.login)
		at := e.beginStr("avatar_url")
		e.b = append(e.b, "https://avatars.githubusercontent.com/u/"...)
		e.b = strconv.AppendInt(e.b, o.id, 10)
		e.b = append(e.b, '?')
		e.endStr(at)
		e.end()
	}
	e.end()
	return e.b
}

func sumInts(xs []int) int {
	s := 0
	for _, x := range xs {
		s += x
	}
	return s
}

// payload writes the members of the payload object.
func (v *event) payload() {
	e, r := &v.e, &v.r
	switch v.typ {
	case PushEvent:
		size := 1
		if r.intn(100) >= 62 {
			size = 2 + r.geometric(2.5)
			if r.intn(100) == 0 {
				size += r.intn(200)
			}
		}
		distinct := size
		if r.intn(10) == 0 {
			distinct = r.intn(size + 1)
		}
		e.int("push_id", firstPushID+v.i*7/10)
		e.int("size", int64(size))
		e.int("distinct_size", int64(distinct))
		if r.intn(100) < 85 {
			e.str("ref", "refs/heads/master")
		} else {
			e.str("ref", "refs/heads/", words[r.intn(len(words))], "-", projects[r.intn(len(projects))])
		}
		head, before := r.sha(), r.sha()
		e.sha("head", &head)
		e.sha("before", &before)
		e.key("commits")
		e.arr()
		for c := range min(size, 20) {
			s := r.sha()
			if c == min(size, 20)-1 {
				s = head
			}
			e.elem()
			e.obj()
			e.sha("sha", &s)
			e.key("author")
			e.obj()
			e.str("email", v.actor.login, "@users.noreply.github.com")
			e.str("name", v.actor.login)
			e.end()
			e.text("message", r, 3+r.intn(10), r.intn(4)/3)
			e.bool("distinct", c >= size-distinct)
			at := e.beginStr("url")
			e.b = append(e.b, "https://api.github.com/repos/"...)
			e.b = append(e.b, v.repo.name...)
			e.b = append(e.b, "/commits/"...)
			e.b = append(e.b, s[:]...)
			e.endStr(at)
			e.end()
		}
		e.endArr()
	case CreateEvent:
		if v.refType == "repository" {
			e.null("ref")
		} else if v.refType == "tag" {
			e.str("ref", "v", strconv.Itoa(r.intn(4)), ".", strconv.Itoa(r.intn(20)), ".", strconv.Itoa(r.intn(10)))
		} else {
			e.str("ref", words[r.intn(len(words))], "-", words[r.intn(len(words))])
		}
		e.str("ref_type", v.refType)
		e.str("master_branch", "master")
		if r.intn(10) < 3 {
			e.null("description")
		} else {
			e.text("description", r, 2+r.intn(10), 0)
		}
		e.str("pusher_type", "user")
	case DeleteEvent:
		if r.intn(100) < 85 {
			e.str("ref", words[r.intn(len(words))], "-", words[r.intn(len(words))])
			e.str("ref_type", "branch")
		} else {
			e.str("ref", "v", strconv.Itoa(r.intn(4)), ".", strconv.Itoa(r.intn(20)))
			e.str("ref_type", "tag")
		}
		e.str("pusher_type", "user")
	case WatchEvent:
		e.str("action", "started")
	case ForkEvent:
		e.key("forkee")
		v.fullRepo(repoInfo{id: newRepoID(v.i), owner: v.actor,
			name: v.actor.login + v.repo.name[len(v.repo.owner.login):]}, true)
	case IssuesEvent:
		e.str("action", v.action)
		e.key("issue")
		comments := 0
		if v.action != "opened" {
			comments = v.comments()
		}
		v.issue(comments)
	case IssueCommentEvent:
		e.str("action", "created")
		e.key("issue")
		v.issue(1 + v.comments())
		e.key("comment")
		e.obj()
		cid := 70000000 + v.i
		e.str("url", "https://api.github.com/repos/", v.repo.name, "/issues/comments/", strconv.FormatInt(cid, 10))
		e.str("html_url", "https://github.com/", v.repo.name, "/issues/", strconv.FormatInt(v.issueNumber(), 10), "#issuecomment-", strconv.FormatInt(cid, 10))
		e.str("issue_url", "https://api.github.com/repos/", v.repo.name, "/issues/", strconv.FormatInt(v.issueNumber(), 10))
		e.int("id", cid)
		e.key("user")
		v.user(v.actor, "User")
		e.time("created_at", v.t)
		e.time("updated_at", v.t)
		e.text("body", r, 5+r.geometric(20), r.intn(3))
		e.end()
	case PullRequestEvent:
		e.str("action", v.action)
		e.int("number", v.issueNumber())
		e.key("pull_request")
		v.pullRequest()
	case PullRequestReviewCommentEvent:
		e.str("action", "created")
		e.key("comment")
		e.obj()
		cid := 80000000 + v.i
		pr := v.issueNumber()
		e.str("url", "https://api.github.com/repos/", v.repo.name, "/pulls/comments/", strconv.FormatInt(cid, 10))
		e.int("id", cid)
		at := e.beginStr("diff_hunk")
		e.b = append(e.b, "@@ -1,6 +1,9 @@"...)
		e.newline(false)
		e.b = append(e.b, ' ')
		e.words(r, 8)
		e.newline(false)
		e.b = append(e.b, '+')
		e.words(r, 6)
		e.endStr(at)
		e.str("path", "src/", projects[r.intn(len(projects))], ".go")
		pos := int64(1 + r.intn(40))
		e.int("position", pos)
		e.int("original_position", pos)
		s := r.sha()
		e.sha("commit_id", &s)
		e.sha("original_commit_id", &s)
		e.key("user")
		v.user(v.actor, "User")
		e.text("body", r, 4+r.geometric(12), 0)
		e.time("created_at", v.t)
		e.time("updated_at", v.t)
		e.str("html_url", "https://github.com/", v.repo.name, "/pull/", strconv.FormatInt(pr, 10), "#discussion_r", strconv.FormatInt(cid, 10))
		e.str("pull_request_url", "https://api.github.com/repos/", v.repo.name, "/pulls/", strconv.FormatInt(pr, 10))
		e.key("_links")
		e.obj()
		v.link("self", "https://api.github.com/repos/", v.repo.name, "/pulls/comments/", strconv.FormatInt(cid, 10))
		v.link("html", "https://github.com/", v.repo.name, "/pull/", strconv.FormatInt(pr, 10), "#discussion_r", strconv.FormatInt(cid, 10))
		v.link("pull_request", "https://api.github.com/repos/", v.repo.name, "/pulls/", strconv.FormatInt(pr, 10))
		e.end()
		e.end()
		e.key("pull_request")
		v.pullRequest()
	case CommitCommentEvent:
		e.key("comment")
		e.obj()
		cid := 90000000 + v.i
		s := r.sha()
		e.str("url", "https://api.github.com/repos/", v.repo.name, "/comments/", strconv.FormatInt(cid, 10))
		e.str("html_url", "https://github.com/", v.repo.name, "/commit/", string(s[:]), "#commitcomment-", strconv.FormatInt(cid, 10))
		e.int("id", cid)
		e.key("user")
		v.user(v.actor, "User")
		if r.intn(2) == 0 {
			e.null("position")
			e.null("line")
			e.null("path")
		} else {
			e.int("position", int64(1+r.intn(30)))
			e.int("line", int64(1+r.intn(300)))
			e.str("path", "src/", projects[r.intn(len(projects))], ".c")
		}
		e.sha("commit_id", &s)
		e.time("created_at", v.t)
		e.time("updated_at", v.t)
		e.text("body", r, 4+r.geometric(15), 0)
		e.end()
	case GollumEvent:
		e.key("pages")
		e.arr()
		for range 1 + r.intn(3)/2 {
			page := projects[r.intn(len(projects))]
			e.elem()
			e.obj()
			e.str("page_name", page)
			e.str("title", page)
			e.null("summary")
			if r.intn(3) == 0 {
				e.str("action", "created")
			} else {
				e.str("action", "edited")
			}
			s := r.sha()
			e.sha("sha", &s)
			e.str("html_url", "https://github.com/", v.repo.name, "/wiki/", page)
			e.end()
		}
		e.endArr()
	case ReleaseEvent:
		e.str("action", "published")
		e.key("release")
		e.obj()
		rid := 1000000 + v.i%10000000
		rs := strconv.FormatInt(rid, 10)
		tag := "v" + strconv.Itoa(r.intn(4)) + "." + strconv.Itoa(r.intn(20)) + "." + strconv.Itoa(r.intn(10))
		e.str("url", "https://api.github.com/repos/", v.repo.name, "/releases/", rs)
		e.str("assets_url", "https://api.github.com/repos/", v.repo.name, "/releases/", rs, "/assets")
		e.str("upload_url", "https://uploads.github.com/repos/", v.repo.name, "/releases/", rs, "/assets{?name}")
		e.str("html_url", "https://github.com/", v.repo.name, "/releases/tag/", tag)
		e.int("id", rid)
		e.str("tag_name", tag)
		e.str("target_commitish", "master")
		e.str("name", tag)
		e.bool("draft", false)
		e.key("author")
		v.user(v.actor, "User")
		e.bool("prerelease", r.intn(10) == 0)
		e.time("created_at", v.t-int64(r.intn(3600)))
		e.time("published_at", v.t)
		e.key("assets")
		e.arr()
		e.endArr()
		e.str("tarball_url", "https://api.github.com/repos/", v.repo.name, "/tarball/", tag)
		e.str("zipball_url", "https://api.github.com/repos/", v.repo.name, "/zipball/", tag)
		e.text("body", r, 5+r.geometric(20), r.intn(3))
		e.end()
	case MemberEvent:
		e.key("member")
		v.user(actorIdent(int64(r.next()%uint64(actorsAt(v.i)))), "User")
		e.str("action", "added")
	case PublicEvent:
	}
}

// botRepoLaw draws a bot's repository among its own few.
var botRepoLaw = newZipf(1.1, 2)

// someActor is an ordinary actor drawn from the population at the event.
func (v *event) someActor() ident { return actorIdent(actorLaw.rank(v.r.float(), actorsAt(v.i))) }

// comments is an issue's comment count: mostly 0 to 3, with a long tail.
func (v *event) comments() int {
	c := v.r.geometric(1.6)
	if v.r.intn(50) == 0 {
		c += 10 + v.r.geometric(40)
	}
	return c
}

// issueNumber is the number of the issue or pull request the event is
// about: small numbers are the most common.
func (v *event) issueNumber() int64 {
	return 1 + int64(float64(mix(uint64(v.i)^0x1d8e4e27c47d124f)>>11)/(1<<53)*float64(1+mix(uint64(v.repo.id))%2000))
}

func (v *event) link(k string, parts ...string) {
	v.e.key(k)
	v.e.obj()
	v.e.str("href", parts...)
	v.e.end()
}

// userURLs are the *_url members of a full user object after its url.
var userURLs = [...][2]string{{"html_url", ""}, {"followers_url", "/followers"}, {"following_url", "/following{/other_user}"},
	{"gists_url", "/gists{/gist_id}"}, {"starred_url", "/starred{/owner}{/repo}"}, {"subscriptions_url", "/subscriptions"},
	{"organizations_url", "/orgs"}, {"repos_url", "/repos"}, {"events_url", "/events{/privacy}"},
	{"received_events_url", "/received_events"}}

// user writes a full user (or organization) object, as issues, comments
// and repositories embed them.
func (v *event) user(u ident, kind string) {
	e := &v.e
	e.obj()
	e.str("login", u.login)
	e.int("id", u.id)
	at := e.beginStr("avatar_url")
	e.b = append(e.b, "https://avatars.githubusercontent.com/u/"...)
	e.b = strconv.AppendInt(e.b, u.id, 10)
	e.b = append(e.b, "?v=3"...)
	e.endStr(at)
	e.str("gravatar_id", "")
	e.str("url", "https://api.github.com/users/", u.login)
	for _, x := range userURLs {
		if x[0] == "html_url" {
			e.str(x[0], "https://github.com/", u.login)
		} else {
			e.str(x[0], "https://api.github.com/users/", u.login, x[1])
		}
	}
	e.str("type", kind)
	e.bool("site_admin", false)
	e.end()
}

// repoURLs are the *_url members of a full repository object.
var repoURLs = [...][2]string{{"forks_url", "/forks"}, {"keys_url", "/keys{/key_id}"},
	{"collaborators_url", "/collaborators{/collaborator}"}, {"teams_url", "/teams"}, {"hooks_url", "/hooks"},
	{"issue_events_url", "/issues/events{/number}"}, {"events_url", "/events"}, {"assignees_url", "/assignees{/user}"},
	{"branches_url", "/branches{/branch}"}, {"tags_url", "/tags"}, {"blobs_url", "/git/blobs{/sha}"},
	{"git_tags_url", "/git/tags{/sha}"}, {"git_refs_url", "/git/refs{/sha}"}, {"trees_url", "/git/trees{/sha}"},
	{"statuses_url", "/statuses/{sha}"}, {"languages_url", "/languages"}, {"stargazers_url", "/stargazers"},
	{"contributors_url", "/contributors"}, {"subscribers_url", "/subscribers"}, {"subscription_url", "/subscription"},
	{"commits_url", "/commits{/sha}"}, {"git_commits_url", "/git/commits{/sha}"}, {"comments_url", "/comments{/number}"},
	{"issue_comment_url", "/issues/comments{/number}"}, {"contents_url", "/contents/{+path}"},
	{"compare_url", "/compare/{base}...{head}"}, {"merges_url", "/merges"}, {"archive_url", "/{archive_format}{/ref}"},
	{"downloads_url", "/downloads"}, {"issues_url", "/issues{/number}"}, {"pulls_url", "/pulls{/number}"},
	{"milestones_url", "/milestones{/number}"}, {"notifications_url", "/notifications{?since,all,participating}"},
	{"labels_url", "/labels{/name}"}, {"releases_url", "/releases{/id}"}}

var languages = [...]string{"JavaScript", "Java", "Python", "Ruby", "PHP", "C++", "C", "Go", "Shell", "CSS", "C#", "Objective-C", "HTML", "Swift", "R", "Scala"}

// fullRepo writes a full repository object, as forks and pull requests
// embed them; forkee adds the public flag ForkEvent's forkee has.
func (v *event) fullRepo(p repoInfo, forkee bool) {
	e, r := &v.e, &v.r
	name := p.name[len(p.owner.login)+1:]
	e.obj()
	e.int("id", p.id)
	e.str("name", name)
	e.str("full_name", p.name)
	e.key("owner")
	if p.org.id != 0 {
		v.user(p.owner, "Organization")
	} else {
		v.user(p.owner, "User")
	}
	e.bool("private", false)
	e.str("html_url", "https://github.com/", p.name)
	e.text("description", r, 3+r.intn(8), 0)
	e.bool("fork", forkee)
	e.str("url", "https://api.github.com/repos/", p.name)
	for _, x := range repoURLs {
		e.str(x[0], "https://api.github.com/repos/", p.name, x[1])
	}
	created := v.t - int64(r.intn(3*365*secondsPerDay))
	if forkee {
		created = v.t
	}
	e.time("created_at", created)
	e.time("updated_at", v.t)
	e.time("pushed_at", v.t-int64(r.intn(secondsPerDay)))
	e.str("git_url", "git://github.com/", p.name, ".git")
	e.str("ssh_url", "git@github.com:", p.name, ".git")
	e.str("clone_url", "https://github.com/", p.name, ".git")
	e.str("svn_url", "https://github.com/", p.name)
	e.null("homepage")
	n := int64(r.geometric(30))
	e.int("size", int64(r.geometric(2000)))
	e.int("stargazers_count", n)
	e.int("watchers_count", n)
	e.str("language", languages[r.intn(len(languages))])
	e.bool("has_issues", true)
	e.bool("has_downloads", true)
	e.bool("has_wiki", true)
	e.bool("has_pages", false)
	f := int64(r.geometric(5))
	e.int("forks_count", f)
	e.null("mirror_url")
	o := int64(r.geometric(4))
	e.int("open_issues_count", o)
	e.int("forks", f)
	e.int("open_issues", o)
	e.int("watchers", n)
	e.str("default_branch", "master")
	if forkee {
		e.bool("public", true)
	}
	e.end()
}

// issue writes the issue object of IssuesEvent and IssueCommentEvent.
func (v *event) issue(comments int) {
	e, r := &v.e, &v.r
	num := strconv.FormatInt(v.issueNumber(), 10)
	base := "https://api.github.com/repos/"
	e.obj()
	e.str("url", base, v.repo.name, "/issues/", num)
	e.str("labels_url", base, v.repo.name, "/issues/", num, "/labels{/name}")
	e.str("comments_url", base, v.repo.name, "/issues/", num, "/comments")
	e.str("events_url", base, v.repo.name, "/issues/", num, "/events")
	e.str("html_url", "https://github.com/", v.repo.name, "/issues/", num)
	e.int("id", 60000000+v.i)
	e.int("number", v.issueNumber())
	e.text("title", r, 3+r.intn(8), 0)
	e.key("user")
	author := v.actor
	if v.typ != IssuesEvent || v.action != "opened" {
		author = v.someActor()
	}
	v.user(author, "User")
	e.key("labels")
	e.arr()
	for range r.intn(5) / 2 {
		l := labels[r.intn(len(labels))]
		e.elem()
		e.obj()
		e.str("url", base, v.repo.name, "/labels/", l[0])
		e.str("name", l[0])
		e.str("color", l[1])
		e.end()
	}
	e.endArr()
	open := v.typ != IssuesEvent || v.action != "closed"
	if open {
		e.str("state", "open")
	} else {
		e.str("state", "closed")
	}
	e.bool("locked", false)
	if r.intn(10) == 0 {
		e.key("assignee")
		v.user(v.someActor(), "User")
	} else {
		e.null("assignee")
	}
	e.null("milestone")
	e.int("comments", int64(comments))
	created := v.t
	if v.action != "opened" {
		created -= int64(r.intn(90 * secondsPerDay))
	}
	e.time("created_at", created)
	e.time("updated_at", v.t)
	if open {
		e.null("closed_at")
	} else {
		e.time("closed_at", v.t)
	}
	e.text("body", r, 10+r.geometric(30), r.intn(4))
	e.end()
}

// pullRequest writes the pull request object of PullRequestEvent and
// PullRequestReviewCommentEvent: head and base each embed a full
// repository.
func (v *event) pullRequest() {
	e, r := &v.e, &v.r
	n := strconv.FormatInt(v.issueNumber(), 10)
	api := "https://api.github.com/repos/" + v.repo.name
	html := "https://github.com/" + v.repo.name
	pid := 30000000 + v.i
	closed := v.typ == PullRequestEvent && v.action == "closed"
	merged := closed && r.intn(3) > 0
	e.obj()
	e.str("url", api, "/pulls/", n)
	e.int("id", pid)
	e.str("html_url", html, "/pull/", n)
	e.str("diff_url", html, "/pull/", n, ".diff")
	e.str("patch_url", html, "/pull/", n, ".patch")
	e.str("issue_url", api, "/issues/", n)
	e.int("number", v.issueNumber())
	if closed {
		e.str("state", "closed")
	} else {
		e.str("state", "open")
	}
	e.bool("locked", false)
	e.text("title", r, 3+r.intn(8), 0)
	author := v.actor
	if v.typ != PullRequestEvent {
		author = v.someActor()
	}
	e.key("user")
	v.user(author, "User")
	e.text("body", r, 8+r.geometric(25), r.intn(3))
	created := v.t - int64(r.intn(20*secondsPerDay))
	if v.action == "opened" {
		created = v.t
	}
	e.time("created_at", created)
	e.time("updated_at", v.t)
	if closed {
		e.time("closed_at", v.t)
	} else {
		e.null("closed_at")
	}
	if merged {
		e.time("merged_at", v.t)
	} else {
		e.null("merged_at")
	}
	mc := r.sha()
	e.sha("merge_commit_sha", &mc)
	e.null("assignee")
	e.null("milestone")
	e.str("commits_url", api, "/pulls/", n, "/commits")
	e.str("review_comments_url", api, "/pulls/", n, "/comments")
	e.str("review_comment_url", api, "/pulls/comments{/number}")
	e.str("comments_url", api, "/issues/", n, "/comments")
	hs := r.sha()
	e.str("statuses_url", api, "/statuses/", string(hs[:]))
	fork := repoInfo{id: forkID(author.id, v.repo.id), owner: author,
		name: author.login + v.repo.name[len(v.repo.owner.login):]}
	branch := words[r.intn(len(words))] + "-" + words[r.intn(len(words))]
	e.key("head")
	e.obj()
	e.str("label", author.login, ":", branch)
	e.str("ref", branch)
	e.sha("sha", &hs)
	e.key("user")
	v.user(author, "User")
	e.key("repo")
	v.fullRepo(fork, false)
	e.end()
	bs := r.sha()
	e.key("base")
	e.obj()
	e.str("label", v.repo.owner.login, ":master")
	e.str("ref", "master")
	e.sha("sha", &bs)
	e.key("user")
	kind := "User"
	if v.repo.org.id != 0 {
		kind = "Organization"
	}
	v.user(v.repo.owner, kind)
	e.key("repo")
	v.fullRepo(v.repo, false)
	e.end()
	e.key("_links")
	e.obj()
	v.link("self", api, "/pulls/", n)
	v.link("html", html, "/pull/", n)
	v.link("issue", api, "/issues/", n)
	v.link("comments", api, "/issues/", n, "/comments")
	v.link("review_comments", api, "/pulls/", n, "/comments")
	v.link("review_comment", api, "/pulls/comments{/number}")
	v.link("commits", api, "/pulls/", n, "/commits")
	v.link("statuses", api, "/statuses/", string(hs[:]))
	e.end()
	e.bool("merged", merged)
	if closed {
		e.null("mergeable")
		e.str("mergeable_state", "unknown")
	} else {
		e.bool("mergeable", true)
		e.str("mergeable_state", "clean")
	}
	if merged {
		e.key("merged_by")
		v.user(v.repo.owner, "User")
	} else {
		e.null("merged_by")
	}
	e.int("comments", int64(r.geometric(2)))
	e.int("review_comments", int64(r.geometric(1)))
	e.int("commits", int64(1+r.geometric(3)))
	e.int("additions", int64(r.geometric(150)))
	e.int("deletions", int64(r.geometric(60)))
	e.int("changed_files", int64(1+r.geometric(4)))
	e.end()
}
