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
	v.e.BSON = bson
	r := &v.r
	id := firstEventID + i*36/10 + int64(r.Next()%3) // as ID
	if u := r.Intn(botShareDenom); u < g.botCum[len(g.botCum)-1] {
		b := 0
		for u >= g.botCum[b] {
			b++
		}
		bt := &bots[b]
		x, c := r.Intn(100)*sumInts(bt.wts)/100, 0
		for j, w := range bt.wts {
			if c += w; x < c {
				v.typ = bt.types[j]
				break
			}
		}
		v.actor = ident{bt.id, bt.login}
		j := uint64(botRepoLaw.rank(r.Float(), int64(bt.repos)))
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
		x := r.Intn(typeShareDenom)
		for v.typ = 0; x >= g.typeCum[v.typ]; v.typ++ {
		}
		v.actor = v.someActor()
		k := repoLaw.rank(r.Float(), reposAt(i))
		switch v.typ {
		case CreateEvent:
			switch x := r.Intn(100); {
			case x < 40:
				v.refType = "repository"
				k = -i - 1 // a new repository, its creator's
			case x < 85:
				v.refType = "branch"
			default:
				v.refType = "tag"
			}
		case IssuesEvent:
			switch x := r.Intn(100); {
			case x < 55:
				v.action = "opened"
			case x < 97:
				v.action = "closed"
			default:
				v.action = "reopened"
			}
		case PullRequestEvent:
			switch x := r.Intn(100); {
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

	v.e.B = dst
	e := &v.e
	e.Obj()
	at := e.BeginStr("id")
	e.B = strconv.AppendInt(e.B, id, 10)
	e.EndStr(at)
	e.Str("type", v.typ.String())
	e.Key("actor")
	e.Obj()
	e.Int("id", v.actor.id)
	e.Str("login", v.actor.login)
	e.Str("gravatar_id", "")
	e.Str("url", "https://api.github.com/users/", v.actor.login)
	at = e.BeginStr("avatar_url")
	e.B = append(e.B, "https://avatars.githubusercontent.com/u/"...)
	e.B = strconv.AppendInt(e.B, v.actor.id, 10)
	e.B = append(e.B, '?')
	e.EndStr(at)
	e.End()
	e.Key("repo")
	e.Obj()
	e.Int("id", v.repo.id)
	e.Str("name", v.repo.name)
	e.Str("url", "https://api.github.com/repos/", v.repo.name)
	e.End()
	e.Key("payload")
	e.Obj()
	v.payload()
	e.End()
	e.Bool("public", true)
	e.time("created_at", v.t)
	if v.repo.org.id != 0 {
		o := v.repo.org
		e.Key("org")
		e.Obj()
		e.Int("id", o.id)
		e.Str("login", o.login)
		e.Str("gravatar_id", "")
		e.Str("url", "https://api.github.com/orgs/", o.login)
		at := e.BeginStr("avatar_url")
		e.B = append(e.B, "https://avatars.githubusercontent.com/u/"...)
		e.B = strconv.AppendInt(e.B, o.id, 10)
		e.B = append(e.B, '?')
		e.EndStr(at)
		e.End()
	}
	e.End()
	return e.B
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
		if r.Intn(100) >= 62 {
			size = 2 + r.Geometric(2.5)
			if r.Intn(100) == 0 {
				size += r.Intn(200)
			}
		}
		distinct := size
		if r.Intn(10) == 0 {
			distinct = r.Intn(size + 1)
		}
		e.Int("push_id", firstPushID+v.i*7/10)
		e.Int("size", int64(size))
		e.Int("distinct_size", int64(distinct))
		if r.Intn(100) < 85 {
			e.Str("ref", "refs/heads/master")
		} else {
			e.Str("ref", "refs/heads/", words[r.Intn(len(words))], "-", projects[r.Intn(len(projects))])
		}
		head, before := shaOf(r), shaOf(r)
		e.sha("head", &head)
		e.sha("before", &before)
		e.Key("commits")
		e.Arr()
		for c := range min(size, 20) {
			s := shaOf(r)
			if c == min(size, 20)-1 {
				s = head
			}
			e.Elem()
			e.Obj()
			e.sha("sha", &s)
			e.Key("author")
			e.Obj()
			e.Str("email", v.actor.login, "@users.noreply.github.com")
			e.Str("name", v.actor.login)
			e.End()
			e.text("message", r, 3+r.Intn(10), r.Intn(4)/3)
			e.Bool("distinct", c >= size-distinct)
			at := e.BeginStr("url")
			e.B = append(e.B, "https://api.github.com/repos/"...)
			e.B = append(e.B, v.repo.name...)
			e.B = append(e.B, "/commits/"...)
			e.B = append(e.B, s[:]...)
			e.EndStr(at)
			e.End()
		}
		e.EndArr()
	case CreateEvent:
		if v.refType == "repository" {
			e.Null("ref")
		} else if v.refType == "tag" {
			e.Str("ref", "v", strconv.Itoa(r.Intn(4)), ".", strconv.Itoa(r.Intn(20)), ".", strconv.Itoa(r.Intn(10)))
		} else {
			e.Str("ref", words[r.Intn(len(words))], "-", words[r.Intn(len(words))])
		}
		e.Str("ref_type", v.refType)
		e.Str("master_branch", "master")
		if r.Intn(10) < 3 {
			e.Null("description")
		} else {
			e.text("description", r, 2+r.Intn(10), 0)
		}
		e.Str("pusher_type", "user")
	case DeleteEvent:
		if r.Intn(100) < 85 {
			e.Str("ref", words[r.Intn(len(words))], "-", words[r.Intn(len(words))])
			e.Str("ref_type", "branch")
		} else {
			e.Str("ref", "v", strconv.Itoa(r.Intn(4)), ".", strconv.Itoa(r.Intn(20)))
			e.Str("ref_type", "tag")
		}
		e.Str("pusher_type", "user")
	case WatchEvent:
		e.Str("action", "started")
	case ForkEvent:
		e.Key("forkee")
		v.fullRepo(repoInfo{id: newRepoID(v.i), owner: v.actor,
			name: v.actor.login + v.repo.name[len(v.repo.owner.login):]}, true)
	case IssuesEvent:
		e.Str("action", v.action)
		e.Key("issue")
		comments := 0
		if v.action != "opened" {
			comments = v.comments()
		}
		v.issue(comments)
	case IssueCommentEvent:
		e.Str("action", "created")
		e.Key("issue")
		v.issue(1 + v.comments())
		e.Key("comment")
		e.Obj()
		cid := 70000000 + v.i
		e.Str("url", "https://api.github.com/repos/", v.repo.name, "/issues/comments/", strconv.FormatInt(cid, 10))
		e.Str("html_url", "https://github.com/", v.repo.name, "/issues/", strconv.FormatInt(v.issueNumber(), 10), "#issuecomment-", strconv.FormatInt(cid, 10))
		e.Str("issue_url", "https://api.github.com/repos/", v.repo.name, "/issues/", strconv.FormatInt(v.issueNumber(), 10))
		e.Int("id", cid)
		e.Key("user")
		v.user(v.actor, "User")
		e.time("created_at", v.t)
		e.time("updated_at", v.t)
		e.text("body", r, 5+r.Geometric(20), r.Intn(3))
		e.End()
	case PullRequestEvent:
		e.Str("action", v.action)
		e.Int("number", v.issueNumber())
		e.Key("pull_request")
		v.pullRequest()
	case PullRequestReviewCommentEvent:
		e.Str("action", "created")
		e.Key("comment")
		e.Obj()
		cid := 80000000 + v.i
		pr := v.issueNumber()
		e.Str("url", "https://api.github.com/repos/", v.repo.name, "/pulls/comments/", strconv.FormatInt(cid, 10))
		e.Int("id", cid)
		at := e.BeginStr("diff_hunk")
		e.B = append(e.B, "@@ -1,6 +1,9 @@"...)
		e.Newline(false)
		e.B = append(e.B, ' ')
		e.words(r, 8)
		e.Newline(false)
		e.B = append(e.B, '+')
		e.words(r, 6)
		e.EndStr(at)
		e.Str("path", "src/", projects[r.Intn(len(projects))], ".go")
		pos := int64(1 + r.Intn(40))
		e.Int("position", pos)
		e.Int("original_position", pos)
		s := shaOf(r)
		e.sha("commit_id", &s)
		e.sha("original_commit_id", &s)
		e.Key("user")
		v.user(v.actor, "User")
		e.text("body", r, 4+r.Geometric(12), 0)
		e.time("created_at", v.t)
		e.time("updated_at", v.t)
		e.Str("html_url", "https://github.com/", v.repo.name, "/pull/", strconv.FormatInt(pr, 10), "#discussion_r", strconv.FormatInt(cid, 10))
		e.Str("pull_request_url", "https://api.github.com/repos/", v.repo.name, "/pulls/", strconv.FormatInt(pr, 10))
		e.Key("_links")
		e.Obj()
		v.link("self", "https://api.github.com/repos/", v.repo.name, "/pulls/comments/", strconv.FormatInt(cid, 10))
		v.link("html", "https://github.com/", v.repo.name, "/pull/", strconv.FormatInt(pr, 10), "#discussion_r", strconv.FormatInt(cid, 10))
		v.link("pull_request", "https://api.github.com/repos/", v.repo.name, "/pulls/", strconv.FormatInt(pr, 10))
		e.End()
		e.End()
		e.Key("pull_request")
		v.pullRequest()
	case CommitCommentEvent:
		e.Key("comment")
		e.Obj()
		cid := 90000000 + v.i
		s := shaOf(r)
		e.Str("url", "https://api.github.com/repos/", v.repo.name, "/comments/", strconv.FormatInt(cid, 10))
		e.Str("html_url", "https://github.com/", v.repo.name, "/commit/", string(s[:]), "#commitcomment-", strconv.FormatInt(cid, 10))
		e.Int("id", cid)
		e.Key("user")
		v.user(v.actor, "User")
		if r.Intn(2) == 0 {
			e.Null("position")
			e.Null("line")
			e.Null("path")
		} else {
			e.Int("position", int64(1+r.Intn(30)))
			e.Int("line", int64(1+r.Intn(300)))
			e.Str("path", "src/", projects[r.Intn(len(projects))], ".c")
		}
		e.sha("commit_id", &s)
		e.time("created_at", v.t)
		e.time("updated_at", v.t)
		e.text("body", r, 4+r.Geometric(15), 0)
		e.End()
	case GollumEvent:
		e.Key("pages")
		e.Arr()
		for range 1 + r.Intn(3)/2 {
			page := projects[r.Intn(len(projects))]
			e.Elem()
			e.Obj()
			e.Str("page_name", page)
			e.Str("title", page)
			e.Null("summary")
			if r.Intn(3) == 0 {
				e.Str("action", "created")
			} else {
				e.Str("action", "edited")
			}
			s := shaOf(r)
			e.sha("sha", &s)
			e.Str("html_url", "https://github.com/", v.repo.name, "/wiki/", page)
			e.End()
		}
		e.EndArr()
	case ReleaseEvent:
		e.Str("action", "published")
		e.Key("release")
		e.Obj()
		rid := 1000000 + v.i%10000000
		rs := strconv.FormatInt(rid, 10)
		tag := "v" + strconv.Itoa(r.Intn(4)) + "." + strconv.Itoa(r.Intn(20)) + "." + strconv.Itoa(r.Intn(10))
		e.Str("url", "https://api.github.com/repos/", v.repo.name, "/releases/", rs)
		e.Str("assets_url", "https://api.github.com/repos/", v.repo.name, "/releases/", rs, "/assets")
		e.Str("upload_url", "https://uploads.github.com/repos/", v.repo.name, "/releases/", rs, "/assets{?name}")
		e.Str("html_url", "https://github.com/", v.repo.name, "/releases/tag/", tag)
		e.Int("id", rid)
		e.Str("tag_name", tag)
		e.Str("target_commitish", "master")
		e.Str("name", tag)
		e.Bool("draft", false)
		e.Key("author")
		v.user(v.actor, "User")
		e.Bool("prerelease", r.Intn(10) == 0)
		e.time("created_at", v.t-int64(r.Intn(3600)))
		e.time("published_at", v.t)
		e.Key("assets")
		e.Arr()
		e.EndArr()
		e.Str("tarball_url", "https://api.github.com/repos/", v.repo.name, "/tarball/", tag)
		e.Str("zipball_url", "https://api.github.com/repos/", v.repo.name, "/zipball/", tag)
		e.text("body", r, 5+r.Geometric(20), r.Intn(3))
		e.End()
	case MemberEvent:
		e.Key("member")
		v.user(actorIdent(int64(r.Next()%uint64(actorsAt(v.i)))), "User")
		e.Str("action", "added")
	case PublicEvent:
	}
}

// botRepoLaw draws a bot's repository among its own few.
var botRepoLaw = newZipf(1.1, 2)

// someActor is an ordinary actor drawn from the population at the event.
func (v *event) someActor() ident { return actorIdent(actorLaw.rank(v.r.Float(), actorsAt(v.i))) }

// comments is an issue's comment count: mostly 0 to 3, with a long tail.
func (v *event) comments() int {
	c := v.r.Geometric(1.6)
	if v.r.Intn(50) == 0 {
		c += 10 + v.r.Geometric(40)
	}
	return c
}

// issueNumber is the number of the issue or pull request the event is
// about: small numbers are the most common.
func (v *event) issueNumber() int64 {
	return 1 + int64(float64(mix(uint64(v.i)^0x1d8e4e27c47d124f)>>11)/(1<<53)*float64(1+mix(uint64(v.repo.id))%2000))
}

func (v *event) link(k string, parts ...string) {
	v.e.Key(k)
	v.e.Obj()
	v.e.Str("href", parts...)
	v.e.End()
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
	e.Obj()
	e.Str("login", u.login)
	e.Int("id", u.id)
	at := e.BeginStr("avatar_url")
	e.B = append(e.B, "https://avatars.githubusercontent.com/u/"...)
	e.B = strconv.AppendInt(e.B, u.id, 10)
	e.B = append(e.B, "?v=3"...)
	e.EndStr(at)
	e.Str("gravatar_id", "")
	e.Str("url", "https://api.github.com/users/", u.login)
	for _, x := range userURLs {
		if x[0] == "html_url" {
			e.Str(x[0], "https://github.com/", u.login)
		} else {
			e.Str(x[0], "https://api.github.com/users/", u.login, x[1])
		}
	}
	e.Str("type", kind)
	e.Bool("site_admin", false)
	e.End()
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
	e.Obj()
	e.Int("id", p.id)
	e.Str("name", name)
	e.Str("full_name", p.name)
	e.Key("owner")
	if p.org.id != 0 {
		v.user(p.owner, "Organization")
	} else {
		v.user(p.owner, "User")
	}
	e.Bool("private", false)
	e.Str("html_url", "https://github.com/", p.name)
	e.text("description", r, 3+r.Intn(8), 0)
	e.Bool("fork", forkee)
	e.Str("url", "https://api.github.com/repos/", p.name)
	for _, x := range repoURLs {
		e.Str(x[0], "https://api.github.com/repos/", p.name, x[1])
	}
	created := v.t - int64(r.Intn(3*365*secondsPerDay))
	if forkee {
		created = v.t
	}
	e.time("created_at", created)
	e.time("updated_at", v.t)
	e.time("pushed_at", v.t-int64(r.Intn(secondsPerDay)))
	e.Str("git_url", "git://github.com/", p.name, ".git")
	e.Str("ssh_url", "git@github.com:", p.name, ".git")
	e.Str("clone_url", "https://github.com/", p.name, ".git")
	e.Str("svn_url", "https://github.com/", p.name)
	e.Null("homepage")
	n := int64(r.Geometric(30))
	e.Int("size", int64(r.Geometric(2000)))
	e.Int("stargazers_count", n)
	e.Int("watchers_count", n)
	e.Str("language", languages[r.Intn(len(languages))])
	e.Bool("has_issues", true)
	e.Bool("has_downloads", true)
	e.Bool("has_wiki", true)
	e.Bool("has_pages", false)
	f := int64(r.Geometric(5))
	e.Int("forks_count", f)
	e.Null("mirror_url")
	o := int64(r.Geometric(4))
	e.Int("open_issues_count", o)
	e.Int("forks", f)
	e.Int("open_issues", o)
	e.Int("watchers", n)
	e.Str("default_branch", "master")
	if forkee {
		e.Bool("public", true)
	}
	e.End()
}

// issue writes the issue object of IssuesEvent and IssueCommentEvent.
func (v *event) issue(comments int) {
	e, r := &v.e, &v.r
	num := strconv.FormatInt(v.issueNumber(), 10)
	base := "https://api.github.com/repos/"
	e.Obj()
	e.Str("url", base, v.repo.name, "/issues/", num)
	e.Str("labels_url", base, v.repo.name, "/issues/", num, "/labels{/name}")
	e.Str("comments_url", base, v.repo.name, "/issues/", num, "/comments")
	e.Str("events_url", base, v.repo.name, "/issues/", num, "/events")
	e.Str("html_url", "https://github.com/", v.repo.name, "/issues/", num)
	e.Int("id", 60000000+v.i)
	e.Int("number", v.issueNumber())
	e.text("title", r, 3+r.Intn(8), 0)
	e.Key("user")
	author := v.actor
	if v.typ != IssuesEvent || v.action != "opened" {
		author = v.someActor()
	}
	v.user(author, "User")
	e.Key("labels")
	e.Arr()
	for range r.Intn(5) / 2 {
		l := labels[r.Intn(len(labels))]
		e.Elem()
		e.Obj()
		e.Str("url", base, v.repo.name, "/labels/", l[0])
		e.Str("name", l[0])
		e.Str("color", l[1])
		e.End()
	}
	e.EndArr()
	open := v.typ != IssuesEvent || v.action != "closed"
	if open {
		e.Str("state", "open")
	} else {
		e.Str("state", "closed")
	}
	e.Bool("locked", false)
	if r.Intn(10) == 0 {
		e.Key("assignee")
		v.user(v.someActor(), "User")
	} else {
		e.Null("assignee")
	}
	e.Null("milestone")
	e.Int("comments", int64(comments))
	created := v.t
	if v.action != "opened" {
		created -= int64(r.Intn(90 * secondsPerDay))
	}
	e.time("created_at", created)
	e.time("updated_at", v.t)
	if open {
		e.Null("closed_at")
	} else {
		e.time("closed_at", v.t)
	}
	e.text("body", r, 10+r.Geometric(30), r.Intn(4))
	e.End()
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
	merged := closed && r.Intn(3) > 0
	e.Obj()
	e.Str("url", api, "/pulls/", n)
	e.Int("id", pid)
	e.Str("html_url", html, "/pull/", n)
	e.Str("diff_url", html, "/pull/", n, ".diff")
	e.Str("patch_url", html, "/pull/", n, ".patch")
	e.Str("issue_url", api, "/issues/", n)
	e.Int("number", v.issueNumber())
	if closed {
		e.Str("state", "closed")
	} else {
		e.Str("state", "open")
	}
	e.Bool("locked", false)
	e.text("title", r, 3+r.Intn(8), 0)
	author := v.actor
	if v.typ != PullRequestEvent {
		author = v.someActor()
	}
	e.Key("user")
	v.user(author, "User")
	e.text("body", r, 8+r.Geometric(25), r.Intn(3))
	created := v.t - int64(r.Intn(20*secondsPerDay))
	if v.action == "opened" {
		created = v.t
	}
	e.time("created_at", created)
	e.time("updated_at", v.t)
	if closed {
		e.time("closed_at", v.t)
	} else {
		e.Null("closed_at")
	}
	if merged {
		e.time("merged_at", v.t)
	} else {
		e.Null("merged_at")
	}
	mc := shaOf(r)
	e.sha("merge_commit_sha", &mc)
	e.Null("assignee")
	e.Null("milestone")
	e.Str("commits_url", api, "/pulls/", n, "/commits")
	e.Str("review_comments_url", api, "/pulls/", n, "/comments")
	e.Str("review_comment_url", api, "/pulls/comments{/number}")
	e.Str("comments_url", api, "/issues/", n, "/comments")
	hs := shaOf(r)
	e.Str("statuses_url", api, "/statuses/", string(hs[:]))
	fork := repoInfo{id: forkID(author.id, v.repo.id), owner: author,
		name: author.login + v.repo.name[len(v.repo.owner.login):]}
	branch := words[r.Intn(len(words))] + "-" + words[r.Intn(len(words))]
	e.Key("head")
	e.Obj()
	e.Str("label", author.login, ":", branch)
	e.Str("ref", branch)
	e.sha("sha", &hs)
	e.Key("user")
	v.user(author, "User")
	e.Key("repo")
	v.fullRepo(fork, false)
	e.End()
	bs := shaOf(r)
	e.Key("base")
	e.Obj()
	e.Str("label", v.repo.owner.login, ":master")
	e.Str("ref", "master")
	e.sha("sha", &bs)
	e.Key("user")
	kind := "User"
	if v.repo.org.id != 0 {
		kind = "Organization"
	}
	v.user(v.repo.owner, kind)
	e.Key("repo")
	v.fullRepo(v.repo, false)
	e.End()
	e.Key("_links")
	e.Obj()
	v.link("self", api, "/pulls/", n)
	v.link("html", html, "/pull/", n)
	v.link("issue", api, "/issues/", n)
	v.link("comments", api, "/issues/", n, "/comments")
	v.link("review_comments", api, "/pulls/", n, "/comments")
	v.link("review_comment", api, "/pulls/comments{/number}")
	v.link("commits", api, "/pulls/", n, "/commits")
	v.link("statuses", api, "/statuses/", string(hs[:]))
	e.End()
	e.Bool("merged", merged)
	if closed {
		e.Null("mergeable")
		e.Str("mergeable_state", "unknown")
	} else {
		e.Bool("mergeable", true)
		e.Str("mergeable_state", "clean")
	}
	if merged {
		e.Key("merged_by")
		v.user(v.repo.owner, "User")
	} else {
		e.Null("merged_by")
	}
	e.Int("comments", int64(r.Geometric(2)))
	e.Int("review_comments", int64(r.Geometric(1)))
	e.Int("commits", int64(1+r.Geometric(3)))
	e.Int("additions", int64(r.Geometric(150)))
	e.Int("deletions", int64(r.Geometric(60)))
	e.Int("changed_files", int64(1+r.Geometric(4)))
	e.End()
}
